// The glob semantics of core/ignore_rules.h written as directly as they are stated: a recursive
// match over (pattern position, path position), memoized so that it takes polynomial time.
// The oracle that tests/core_ignore_rules_test.cpp and fuzz/fuzz_ignore_rules.cpp compare Glob
// with; it recurses once per pattern and path character, so it is for short inputs only, and it
// is never part of tpulint itself.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tpulint::testing {

class ReferenceGlob {
 public:
  ReferenceGlob(std::string_view pattern, std::string_view path)
      : p_(pattern), s_(path), memo_((p_.size() + 1) * (s_.size() + 1), kUnknown) {}

  bool matches() { return match(0, 0); }

 private:
  static constexpr uint8_t kUnknown = 2;

  bool match(size_t pi, size_t si) {
    uint8_t& known = memo_[pi * (s_.size() + 1) + si];
    if (known == kUnknown) known = uncached_match(pi, si);
    return known;
  }

  bool uncached_match(size_t pi, size_t si) {
    if (pi == p_.size()) return si == s_.size();
    if (p_[pi] == '*') {
      size_t after = p_.find_first_not_of('*', pi);
      if (after == std::string_view::npos) after = p_.size();
      if (after - pi == 1) {  // '*': any run of characters but '/'
        for (size_t k = si;; ++k) {
          if (match(after, k)) return true;
          if (k == s_.size() || s_[k] == '/') return false;
        }
      }
      if (after < p_.size() && p_[after] == '/') {  // "**/": nothing, or anything ending in '/'
        if (match(after + 1, si)) return true;
        for (size_t k = si; k < s_.size(); ++k)
          if (s_[k] == '/' && match(after + 1, k + 1)) return true;
        return false;
      }
      for (size_t k = si; k <= s_.size(); ++k)  // "**" elsewhere: anything
        if (match(after, k)) return true;
      return false;
    }
    if (si == s_.size()) return false;
    const char c = s_[si];
    if (p_[pi] == '?') return c != '/' && match(pi + 1, si + 1);
    if (p_[pi] == '[') {
      size_t end = 0;
      bool in = in_class(pi, c, end);
      if (end != 0) return in && c != '/' && match(end, si + 1);
      // No closing ']': the '[' is a literal, compared below.
    }
    if (p_[pi] == '\\' && pi + 1 < p_.size()) return c == p_[pi + 1] && match(pi + 2, si + 1);
    return c == p_[pi] && match(pi + 1, si + 1);
  }

  // Whether the class opening at p_[open] holds `c`; `end` becomes the position after its ']',
  // or stays 0 when the class is not closed. A ']' first in the class is a member, '-' between
  // two members makes a range (of `char` values, as compared), '\' escapes a member.
  bool in_class(size_t open, char c, size_t& end) const {
    size_t i = open + 1;
    const bool negated = i < p_.size() && (p_[i] == '!' || p_[i] == '^');
    if (negated) ++i;
    bool in = false;
    for (size_t first = i; i < p_.size(); ++i) {
      if (p_[i] == ']' && i != first) {
        end = i + 1;
        return in != negated;
      }
      char low = p_[i];
      if (low == '\\' && i + 1 < p_.size()) low = p_[++i];
      char high = low;
      if (i + 2 < p_.size() && p_[i + 1] == '-' && p_[i + 2] != ']') {
        i += 2;
        high = p_[i];
        if (high == '\\' && i + 1 < p_.size()) high = p_[++i];
      }
      in = in || (low <= c && c <= high);
    }
    return false;
  }

  std::string_view p_, s_;
  std::vector<uint8_t> memo_;
};

}  // namespace tpulint::testing
