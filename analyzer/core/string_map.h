// StringMap: a map from strings to values for the lookups made once per syntax node (which checks
// a callee's name is for, which names a file's imports bind), where most lookups miss.
//
// std::unordered_map spends such a lookup hashing every byte, dividing by a prime to find the
// bucket and following the bucket's list. Here the slots are a power of two, at most half full,
// and hold each key's full hash: a miss is one multiply-mixed hash, one masked index and, mostly,
// an empty slot or a hash that differs. Keys are copied in; values live in insertion order and
// may move when the map grows (a pointer from find() holds until the next insertion). There is
// no iteration and no erase: the maps are built, then read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpulint {

// Every byte counts, eight at a time, so that names sharing their ends (dotted paths) do not
// collide; the tail's bytes are read in a way that is one-to-one for each length.
inline uint64_t string_map_hash(std::string_view s) {
  auto mix = [](uint64_t a, uint64_t b) {
    const unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
    return uint64_t(m) ^ uint64_t(m >> 64);
  };
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  for (; n > 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ w, 0xBF58476D1CE4E5B9ull);
  }
  uint64_t tail = 0;
  if (n >= 4) {
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    tail = uint64_t(first) << 32 | last;
  } else if (n > 0) {
    tail = uint64_t(uint8_t(p[0])) << 16 | uint64_t(uint8_t(p[n / 2])) << 8 | uint8_t(p[n - 1]);
  }
  return mix(h ^ tail, 0x94D049BB133111EBull);
}

template <typename Value>
class StringMap {
 public:
  // The value of `key`, made (value-initialized) if absent; true when it was made.
  std::pair<Value*, bool> try_emplace(std::string_view key) {
    if ((entries_.size() + 1) * 2 > slots_.size()) grow();
    const uint64_t h = string_map_hash(key);
    Slot& slot = slots_[slot_of(key, h)];
    if (slot.entry != kEmpty) return {&entries_[slot.entry].second, false};
    slot = {h, uint32_t(entries_.size())};
    entries_.emplace_back(std::string(key), Value{});
    return {&entries_.back().second, true};
  }
  Value& operator[](std::string_view key) { return *try_emplace(key).first; }

  const Value* find(std::string_view key) const {
    if (entries_.empty()) return nullptr;
    const Slot& slot = slots_[slot_of(key, string_map_hash(key))];
    return slot.entry == kEmpty ? nullptr : &entries_[slot.entry].second;
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t hash = 0;
    uint32_t entry = kEmpty;  // index in entries_
  };
  size_t mask() const { return slots_.size() - 1; }

  // The slot holding `key` (whose hash is h), or the empty one where it would go.
  size_t slot_of(std::string_view key, uint64_t h) const {
    size_t i = h & mask();
    while (slots_[i].entry != kEmpty && !(slots_[i].hash == h && entries_[slots_[i].entry].first == key))
      i = (i + 1) & mask();
    return i;
  }

  void grow() {
    std::vector<Slot> slots(slots_.empty() ? 16 : slots_.size() * 2);
    const size_t m = slots.size() - 1;
    for (const Slot& s : slots_) {
      if (s.entry == kEmpty) continue;
      size_t i = s.hash & m;
      while (slots[i].entry != kEmpty) i = (i + 1) & m;
      slots[i] = s;
    }
    slots_ = std::move(slots);
  }

  std::vector<Slot> slots_;
  std::vector<std::pair<std::string, Value>> entries_;
};

// The keys alone.
class StringSet {
 public:
  bool insert(std::string_view key) { return map_.try_emplace(key).second; }
  bool contains(std::string_view key) const { return map_.contains(key); }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }

 private:
  struct Nothing {};
  StringMap<Nothing> map_;
};

}  // namespace tpulint
