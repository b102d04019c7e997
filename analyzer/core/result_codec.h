// A FileResult as one line of text and back: how cached results are stored and how worker
// processes send results to the scan. An internal format (tab-separated, escaped strings),
// written and read only by the same build of tpulint: the cache key holds the binary's hash.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/finding.h"

namespace tpulint {

std::string encode_result(const FileResult& result);
// The same, appended to `out`.
void append_encoded_result(std::string& out, const FileResult& result);
// Nullopt for text that is not an encoded result (a damaged cache entry).
std::optional<FileResult> decode_result(const std::string& path, std::string_view text);

}  // namespace tpulint
