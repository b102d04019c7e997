// Text made of one part repeated, for the tests that build large or deeply nested inputs.
#pragma once

#include <string>
#include <string_view>

namespace tpulint::testing {

inline std::string repeat(std::string_view part, int n) {
  std::string out;
  out.reserve(part.size() * size_t(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) out += part;
  return out;
}

}  // namespace tpulint::testing
