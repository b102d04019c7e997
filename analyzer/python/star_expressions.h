// Star expressions that the pinned Python grammar cannot read, found in a parse with errors.
//
// Python 3 allows a star expression wherever a comma-separated list of expressions stands:
// `return dq, dk, *((None,) * 21)`, `x = a, *[None] * n`, `for x in a, *(b):`, `a[*(b)]`. The
// grammar (tree-sitter-python 0.25.0, the newest release) reads one there only when a name
// follows the `*` (`return a, *b`), and makes the whole statement a syntax error otherwise. Its
// parse tables cannot be changed without regenerating the parser, which needs tree-sitter's
// generator at build time; instead, the analyzer parses a file whose first parse has errors again
// with the `*` of such star expressions read as a space (`return dq, dk,  ((None,) * 21)`), and
// keeps that parse when it has fewer errors. Nothing moves, so the operand's own code is analyzed
// where it is; the tree has an element where the file has a starred one, which no check tells
// apart.
#pragma once

#include <vector>

#include "core/types.h"

namespace tpulint::python {

class Tree;

// The `*` tokens (one byte each, ascending) on the lines of `tree`'s syntax errors (ERROR and
// MISSING nodes) that begin a star expression the grammar cannot read: a `*` after a comma, `=`,
// an augmented assignment, `return`, `yield`, `in` or a subscript's `[`, before an operand that
// is not a name (a bracket, a unary `-`, `+` or `~`, a literal, `await`). A `*` elsewhere (a
// parameter list's, `import *`, a product) is left alone. Empty for a tree without errors.
std::vector<ByteSpan> unread_star_expressions(const Tree& tree);

// How many ERROR and MISSING nodes `tree` has.
size_t syntax_error_count(const Tree& tree);

}  // namespace tpulint::python
