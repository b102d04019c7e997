// --diff compares lines itself (git's diff drivers and settings are the scanned repository's):
// its added lines against a brute-force longest common subsequence.
#include <catch2/catch.hpp>
#include <random>

#include "app/line_diff.h"

using tpulint::app::added_line_ranges;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  for (char c : text) {
    line += c;
    if (c == '\n') out.push_back(std::exchange(line, ""));
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

size_t lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
  return t[a.size()][b.size()];
}

}  // namespace

TEST_CASE("line diff: what a small edit adds", "[diff]") {
  using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;
  CHECK(added_line_ranges("a\nb\nc\n", "a\nb\nc\n").empty());
  CHECK(added_line_ranges("a\nb\nc\n", "a\nx\nb\nc\n") == Ranges{{2, 2}});
  CHECK(added_line_ranges("a\nb\nc\n", "a\nB\nc\n") == Ranges{{2, 2}});
  CHECK(added_line_ranges("a\nb\nc\n", "a\nc\n").empty());  // removed lines add nothing
  CHECK(added_line_ranges("", "a\nb\n") == Ranges{{1, 2}});
  CHECK(added_line_ranges("a\nb", "a\nb\nc") == Ranges{{2, 3}});  // the last line gained a line break
  CHECK(added_line_ranges("a\r\nb\r\n", "a\r\nx\r\nb\r\n") == Ranges{{2, 2}});
  CHECK(added_line_ranges("x\ny\n", "a\nx\nb\ny\nc\n") == Ranges{{1, 1}, {3, 3}, {5, 5}});
}

TEST_CASE("line diff: the added lines are exactly those outside a longest common subsequence", "[diff]") {
  std::mt19937 random(7);
  for (int round = 0; round < 3000; ++round) {
    auto text = [&] {
      std::string t;
      int n = std::uniform_int_distribution<int>(0, 12)(random);
      for (int i = 0; i < n; ++i) t += std::string(1, char('a' + std::uniform_int_distribution<int>(0, 3)(random))) + "\n";
      return t;
    };
    std::string before = text(), now = text();
    auto ranges = added_line_ranges(before, now);
    std::vector<bool> is_added(lines_of(now).size(), false);
    for (auto [first, last] : ranges)
      for (uint32_t l = first; l <= last; ++l) {
        REQUIRE(l >= 1);
        REQUIRE(l <= is_added.size());
        is_added[l - 1] = true;
      }
    INFO("before:\n" << before << "now:\n" << now);
    // The kept lines are a common subsequence (in order, found in `before`) of greatest length.
    std::vector<std::string> kept;
    for (size_t i = 0; i < is_added.size(); ++i)
      if (!is_added[i]) kept.push_back(lines_of(now)[i]);
    CHECK(lcs(kept, lines_of(before)) == kept.size());
    CHECK(kept.size() == lcs(lines_of(before), lines_of(now)));
  }
}

TEST_CASE("line diff: past the edit bound, the differing middle counts as added", "[diff]") {
  std::string before, now;
  for (int i = 0; i < 50; ++i) before += "old " + std::to_string(i) + "\n", now += "new " + std::to_string(i) + "\n";
  auto ranges = added_line_ranges("head\n" + before + "tail\n", "head\n" + now + "tail\n", 10);
  CHECK(ranges == std::vector<std::pair<uint32_t, uint32_t>>{{2, 51}});
}
