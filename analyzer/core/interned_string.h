// InternedString: an immutable string held once per value for the rest of the process.
//
// A finding's path, check name, message, hint, subject and source line repeat across thousands
// of findings (a million-line scan has about 80k findings in 12k files). Held once, they cost
// no allocation and no fresh memory per finding, and two equal ones mostly compare by address.
// The table only grows: its values are files, checks, entities, messages and the lines findings
// stand on, each far fewer than the findings, and a tpulint process makes one report.
#pragma once

#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace tpulint {

class InternedString {
 public:
  InternedString() = default;  // ""
  // Explicit: a temporary std::string must never pass for one silently. Assignment is implicit.
  explicit InternedString(std::string_view s);
  InternedString& operator=(std::string_view s) { return *this = InternedString(s); }
  InternedString& operator=(const std::string& s) { return *this = InternedString(std::string_view(s)); }
  InternedString& operator=(const char* s) { return *this = InternedString(std::string_view(s)); }

  std::string_view view() const { return view_; }
  operator std::string_view() const { return view_; }
  std::string str() const { return std::string(view_); }
  const char* data() const { return view_.data(); }
  size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  auto begin() const { return view_.begin(); }
  auto end() const { return view_.end(); }
  char back() const { return view_.back(); }
  bool starts_with(std::string_view p) const { return view_.starts_with(p); }
  bool ends_with(std::string_view p) const { return view_.ends_with(p); }
  size_t find(std::string_view s, size_t pos = 0) const { return view_.find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return view_.find(c, pos); }
  size_t rfind(char c, size_t pos = std::string_view::npos) const { return view_.rfind(c, pos); }
  std::string_view substr(size_t pos, size_t n = std::string_view::npos) const { return view_.substr(pos, n); }

  // Equal values mostly share their storage, so equality is mostly one comparison of
  // addresses. Not always: the Clang module links a table of its own.
  friend bool operator==(InternedString a, InternedString b) {
    return a.view_.data() == b.view_.data() || a.view_ == b.view_;
  }
  friend std::strong_ordering operator<=>(InternedString a, InternedString b) {
    return a.view_.data() == b.view_.data() ? std::strong_ordering::equal : a.view_.compare(b.view_) <=> 0;
  }
  friend bool operator==(InternedString a, std::string_view b) { return a.view_ == b; }
  friend std::strong_ordering operator<=>(InternedString a, std::string_view b) { return a.view_.compare(b) <=> 0; }
  friend std::ostream& operator<<(std::ostream& out, InternedString s) { return out << s.view_; }

 private:
  std::string_view view_;  // into the table; {} (a null data pointer) for ""
};

}  // namespace tpulint

template <>
struct std::hash<tpulint::InternedString> {
  size_t operator()(tpulint::InternedString s) const { return std::hash<std::string_view>()(s.view()); }
};

template <>
struct fmt::formatter<tpulint::InternedString> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(tpulint::InternedString s, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(s.view(), ctx);
  }
};
