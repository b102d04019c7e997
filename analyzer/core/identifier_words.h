// Identifiers and file names as words, for matching names whatever their spelling: a kernel's
// name against the standard-op table (checks/kernel_class), the files of one kernel family
// (core/score).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tpulint {

// An identifier or path component in lower-case words: split at non-alphanumerics, at case
// changes (`RoIAlignForward` -> ro, i, align, forward; `XEntropy` -> x, entropy) and between
// letters and digits.
std::vector<std::string> identifier_words(std::string_view name);

// `s` with its ASCII letters in lower case.
std::string ascii_lower(std::string_view s);

}  // namespace tpulint
