// StringMap and StringSet against std::unordered_map on the same operations: names of every
// length around the hash's 4- and 8-byte reads, dotted names that share their ends, growth past
// many doublings, the empty key, and bytes of every value.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/string_map.h"

using tpulint::string_map_hash;
using tpulint::StringMap;
using tpulint::StringSet;

namespace {

// Names of lengths 0 to 40 over a small alphabet (so that many share prefixes and suffixes), plus
// dotted paths that differ only in the middle.
std::vector<std::string> sample_names(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    std::string s(rng() % 41, 'a');
    for (char& c : s) c = char('a' + rng() % 3);
    out.push_back(s);
  }
  for (int i = 0; i < 200; ++i) out.push_back("torch.nn." + std::to_string(i) + ".functional.relu");
  return out;
}

}  // namespace

TEST_CASE("StringMap finds what was put in and nothing else, as std::unordered_map does") {
  std::vector<std::string> names = sample_names(5000, 7);
  StringMap<int> map;
  std::unordered_map<std::string, int> reference;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i % 2) continue;  // the odd ones are asked about, never put in (unless equal to an even one)
    auto [value, made] = map.try_emplace(names[i]);
    auto [it, ref_made] = reference.try_emplace(names[i], 0);
    REQUIRE(made == ref_made);
    *value += int(i);
    it->second += int(i);
  }
  REQUIRE(map.size() == reference.size());
  for (const std::string& name : names) {
    const int* value = map.find(name);
    auto it = reference.find(name);
    REQUIRE((value != nullptr) == (it != reference.end()));
    if (value) CHECK(*value == it->second);
    CHECK(map.contains(name) == (it != reference.end()));
  }
}

TEST_CASE("StringMap's operator[] makes a value-initialized entry once and keeps the later assignment") {
  StringMap<size_t> map;
  CHECK(map.empty());
  CHECK(map.find("") == nullptr);
  map["torch"] = 1;
  map[""] = 2;
  map["torch"] = 3;  // a later import of the same name wins
  CHECK(map.size() == 2);
  REQUIRE(map.find("torch") != nullptr);
  CHECK(*map.find("torch") == 3);
  REQUIRE(map.find("") != nullptr);
  CHECK(*map.find("") == 2);
  CHECK(map.find("torc") == nullptr);
  CHECK(map.find("torch ") == nullptr);
  CHECK(map["new"] == 0);
}

TEST_CASE("StringSet inserts each key once") {
  StringSet set;
  CHECK(set.insert("jax.numpy"));
  CHECK_FALSE(set.insert("jax.numpy"));
  CHECK(set.insert("jax"));
  CHECK(set.size() == 2);
  CHECK(set.contains("jax"));
  CHECK_FALSE(set.contains("jax.num"));
  CHECK_FALSE(set.contains(""));
}

TEST_CASE("string_map_hash tells apart strings of one length that differ in any one byte") {
  // The tail is read as overlapping 4-byte words or as three single bytes: each must still see
  // every byte, at every length up to three words.
  for (size_t n = 1; n <= 24; ++n) {
    std::set<uint64_t> hashes;
    std::string base(n, 'x');
    hashes.insert(string_map_hash(base));
    for (size_t at = 0; at < n; ++at)
      for (int c : {0, int('y'), 0x80, 0xff}) {
        std::string s = base;
        s[at] = char(c);
        hashes.insert(string_map_hash(s));
      }
    CHECK(hashes.size() == 1 + 4 * n);
  }
  CHECK(string_map_hash("") != string_map_hash(std::string_view("\0", 1)));
}
