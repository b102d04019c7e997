// The byte offset a tree-sitter lexer stands at, for tree-sitter-python's external scanner as
// patches/tree-sitter-python-scanner.patch changes it: tree-sitter 0.25's TSLexer (the scanner's
// view of the lexer) has no such field, and the scanner needs one to read back what an earlier
// scan found at the same place. The runtime hands its scanners the TSLexer at the start of its
// Lexer, so this reads the pinned runtime's internal layout, as analyzer/python/visible_nodes.c does.
#include "lexer.h"

uint32_t tpulint_ts_lexer_position(const TSLexer *lexer) { return ((const Lexer *)lexer)->current_position.bytes; }
