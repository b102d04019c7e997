// Suppression comments, the same in every language but for the comment marker:
//
//   x = torch.nonzero(m)  # tpulint: ignore[TPU201]        this line
//   # tpulint: ignore-next-line[TPU2,TPU401]               the next line
//   # tpulint: disable[TPU4]  ...  # tpulint: enable[TPU4]  a block
//   # tpulint: ignore-file[TPU501]                          the whole file
//
// `//` and `/* */` work in C/C++/CUDA. An entry is an ID or an ID prefix (TPU4 is every
// TPU4xx check); without a list a directive covers every check. A suppression that
// suppresses nothing is reported (TPU904), and so is a malformed one, an unknown check, an
// `enable` without its `disable` and a `disable` never enabled again (TPU905).
//
// Directives are found lexically: a comment marker followed by `tpulint:`. Text inside a
// string literal that looks exactly like one is taken for one.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/source_file.h"

namespace tpulint {

struct SuppressionPolicy {
  // Whether a check ID is enabled for a file (the selection, and per-path ignores): findings
  // of other checks are dropped, and a suppression of only disabled checks is never unused.
  std::function<bool(std::string_view check_id, std::string_view path)> enabled;
  // Whether an entry (an ID or a prefix) names at least one registered check.
  std::function<bool(std::string_view prefix)> known;
  // Whether an entry names at least one check enabled for a file ("" names every check).
  std::function<bool(std::string_view prefix, std::string_view path)> runs;
};

// A directive as written on one line: a comment marker, `tpulint`, `:`, a word and an
// optional [list], with any whitespace between them.
struct DirectiveText {
  size_t begin = 0;         // the marker's offset in the line
  size_t end = 0;           // past the list, or past the whitespace after the word
  std::string_view word;    // letters, '_' and '-'; possibly empty or no known directive
  bool has_list = false;    // a '[' follows the word
  bool list_closed = false; // and a ']' ends it
  std::string_view list;    // between the brackets
};

// The directives on `line`, left to right, none overlapping. `hash_comments`: a comment starts
// with '#' (Python, CMake); otherwise with `//` or `/*` (C/C++/CUDA).
std::vector<DirectiveText> find_directives(std::string_view line, bool hash_comments);

// Drops `findings` of disabled checks, applies the file's suppression comments to the rest,
// and adds a TPU904/TPU905 note for each unused or invalid suppression (when enabled).
void apply_suppressions(const SourceFile& file, std::vector<Finding>& findings, const SuppressionPolicy& policy);

}  // namespace tpulint
