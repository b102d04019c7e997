// libFuzzer target: bytes as one encoded result (a cache entry, or a worker's message) through
// decode_result and decode_result_into. A damaged text is rejected whole; an accepted one
// encodes back to a text that decodes to the same result.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tpulint;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<Finding> list(1);  // a scan's list, with another file's finding in it already
  const std::optional<FileResult> into = decode_result_into("m.py", text, list);
  const std::optional<FileResult> whole = decode_result("m.py", text);
  if (into.has_value() != whole.has_value()) __builtin_trap();
  if (!whole) {
    if (list.size() != 1) __builtin_trap();  // left as it was
    return 0;
  }
  if (list.size() != 1 + whole->findings.size()) __builtin_trap();
  const std::string encoded = encode_result(*whole);
  const std::optional<FileResult> back = decode_result("m.py", encoded);
  if (encoded.find('\n') != std::string::npos || !back || encode_result(*back) != encoded) __builtin_trap();
  return 0;
}
