// Word-at-a-time (SWAR) scans for the writers of long, mostly plain strings: the result codec
// and the JSON report. Eight bytes are tested at once in a uint64_t; a word with a byte of
// interest is then looked at byte by byte.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tpulint::bytes {

inline constexpr uint64_t kOnes = 0x0101010101010101ull;
inline constexpr uint64_t kHighs = 0x8080808080808080ull;

// Each is nonzero when some byte of `w` is as named. A borrow may also flag a byte after a
// matching one, never a word without one: a flag only sends the scan to the byte-wise loop.
constexpr uint64_t any_byte_below(uint64_t w, uint8_t n) { return (w - n * kOnes) & ~w & kHighs; }  // n <= 0x80
constexpr uint64_t any_byte_equal(uint64_t w, uint8_t c) { return any_byte_below(w ^ (c * kOnes), 1); }
constexpr uint64_t any_byte_above_7f(uint64_t w) { return w & kHighs; }

// The length of the run at the start of `s` of bytes `plain` accepts. `special(word)` must be
// nonzero for every word holding a byte `plain` rejects.
template <class Special, class Plain>
size_t plain_run(std::string_view s, Special special, Plain plain) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (special(w)) break;
  }
  while (i < s.size() && plain(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace tpulint::bytes
