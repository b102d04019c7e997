// A FileResult as one line of text and back: how cached results are stored and how worker
// processes send results to the scan. An internal format (tab-separated, escaped strings),
// written and read only by the same build of tpulint: the cache key holds the binary's hash.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace tpulint {

std::string encode_result(const FileResult& result);
// The same, appended to `out`.
void append_encoded_result(std::string& out, const FileResult& result);
// The same, with `findings` as the result's findings (its own are not read).
void append_encoded_result(std::string& out, const FileResult& result, std::span<const Finding> findings);
// Nullopt for text that is not an encoded result (a damaged cache entry).
std::optional<FileResult> decode_result(const std::string& path, std::string_view text);
// The same, with the result's findings appended to `findings` instead of held by the result
// (a scan's list of every file's findings); on nullopt, `findings` is as it was.
std::optional<FileResult> decode_result_into(const std::string& path, std::string_view text,
                                             std::vector<Finding>& findings);

}  // namespace tpulint
