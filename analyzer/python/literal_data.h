// Literal data in Python source: long runs of literals between commas in brackets (tables of
// numbers, lists of strings), which the parser reads as spaces.
//
// tree-sitter builds two to four nodes of about 100 bytes for each element of a list, and the
// frontend lists each visible one in its node table: a data file took 200 times its size. Checks
// look at code (calls, names, imports, the arguments of the calls they know); none reads an
// element out of hundreds of literals in a row. So in such a run the parser reads every element
// after the first as spaces. Line breaks are kept and nothing moves: every offset, line and column
// is the file's, and a node's text is read from the file itself.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace tpulint::python {

// How many literal elements in a row, in one pair of brackets, are literal data.
inline constexpr uint32_t kLiteralDataRun = 256;

// The byte ranges of `text` that the parser reads as spaces: in each run of `min_run` (tests ask
// for fewer) or more literal elements in a row between the commas of one pair of brackets, from
// past the comma after its first element to past its last element and the comma after it: the
// brackets keep one element and a comma, so that a tuple stays a tuple. An element is literal when it holds only numbers,
// strings without an f or t prefix, True, False, None, `...`, operators, and brackets holding only
// literal elements. Ascending and disjoint. None at all when the text does not scan as Python
// (an unterminated string, an unmatched bracket, a stray backslash): the parser then reads it all.
std::vector<ByteSpan> literal_data(std::string_view text, uint32_t min_run = kLiteralDataRun);

// `text` with every byte of `spans` but line breaks replaced by a space.
std::string blank(std::string_view text, std::span<const ByteSpan> spans);

}  // namespace tpulint::python
