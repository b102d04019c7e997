#include "core/interned_string.h"

#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_set>

namespace tpulint {

namespace {

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

struct Table {
  std::mutex mutex;  // checks run on threads with --in-process
  // Node-based: a value's characters never move once stored, whatever is added later.
  std::unordered_set<std::string, Hash, std::equal_to<>> values;
};

constexpr unsigned kRecentSlotBits = 6;

// Fibonacci hashing of the length and three bytes: the top bits of their product with 2^64/phi.
size_t recent_slot(std::string_view s) {
  const uint64_t key = uint64_t(s.size()) ^ uint64_t(uint8_t(s.front())) << 16 ^ uint64_t(uint8_t(s.back())) << 24 ^
                       uint64_t(uint8_t(s[s.size() / 2])) << 32;
  return size_t((key * 0x9E3779B97F4A7C15u) >> (64 - kRecentSlotBits));
}

}  // namespace

InternedString::InternedString(std::string_view s) {
  if (s.empty()) return;
  // A thread interns a few values again and again: a file's path, and the check names, hints
  // and subjects its findings alternate between. The values it made last are answered without
  // the table's lock and hash: one of 64 slots chosen from the length and three bytes, whose
  // value is then compared whole (values sharing a slot replace each other).
  thread_local std::array<std::string_view, size_t(1) << kRecentSlotBits> recent;
  std::string_view& slot = recent[recent_slot(s)];
  if (s == slot) {
    view_ = slot;
    return;
  }
  static Table& table = *new Table;  // never destroyed: views of it may be read until exit
  std::lock_guard lock(table.mutex);
  auto it = table.values.find(s);
  if (it == table.values.end()) it = table.values.emplace(s).first;
  view_ = slot = *it;
}

}  // namespace tpulint
