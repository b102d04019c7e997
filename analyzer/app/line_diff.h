// Which lines of a file are new since an earlier version of it: the lines of the new text
// that a shortest edit script from the old text does not keep (Myers' O(ND) algorithm), for
// `--diff`. Lines end as a SourceFile's do ("\n", "\r\n" or a lone "\r").
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace tpulint::app {

// The 1-based inclusive ranges of lines of `now` that are added or changed since `before`.
// When the two differ in more than `max_edits` lines, the differing middle (what lies between
// their common first and last lines) counts as changed: time and memory stay bounded.
std::vector<std::pair<uint32_t, uint32_t>> added_line_ranges(std::string_view before, std::string_view now,
                                                             int max_edits = 2000);

}  // namespace tpulint::app
