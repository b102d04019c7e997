#include "app/line_diff.h"

#include <algorithm>
#include <optional>

#include "core/source_file.h"

namespace tpulint::app {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  if (text.empty()) return out;
  std::vector<uint32_t> starts = line_starts(text);
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
    if (starts[i] == text.size()) break;  // the empty line after a final line break
    out.push_back(text.substr(starts[i], end - starts[i]));
  }
  return out;
}

// Which lines of `b` a shortest edit script from `a` keeps; nullopt when it needs more than
// `max_edits` edits. The trace keeps, for each edit count d, the furthest point reached on
// each diagonal k in [-d, d]: O(D^2) memory.
std::optional<std::vector<bool>> kept_lines(const std::vector<std::string_view>& a,
                                            const std::vector<std::string_view>& b, int max_edits) {
  const int n = int(a.size()), m = int(b.size());
  std::vector<std::vector<int>> trace;  // trace[d][k + d]: furthest x on diagonal k after d - 1 edits
  std::vector<int> v(size_t(2 * max_edits + 3), 0);
  const int mid = max_edits + 1;
  auto at = [&](int k) -> int& { return v[size_t(mid + k)]; };
  for (int d = 0; d <= max_edits; ++d) {
    trace.emplace_back(v.begin() + (mid - d), v.begin() + (mid + d + 1));
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      int y = x - k;
      while (x < n && y < m && a[size_t(x)] == b[size_t(y)]) ++x, ++y;
      at(k) = x;
      if (x < n || y < m) continue;
      // Walk back from the end, marking the lines of b on each edit's diagonal run.
      std::vector<bool> kept(size_t(m), false);
      int cx = n, cy = m;
      for (int e = d; e > 0; --e) {
        const std::vector<int>& before = trace[size_t(e)];
        auto prev_at = [&](int kk) { return before[size_t(kk + e)]; };
        const int ck = cx - cy;
        const int pk = (ck == -e || (ck != e && prev_at(ck - 1) < prev_at(ck + 1))) ? ck + 1 : ck - 1;
        const int px = prev_at(pk), py = px - pk;
        // The run back to where the edit from (px, py) landed.
        for (; cx > px && cy > py; --cx, --cy) kept[size_t(cy - 1)] = true;
        cx = px, cy = py;
      }
      for (; cx > 0 && cy > 0; --cx, --cy) kept[size_t(cy - 1)] = true;
      return kept;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> added_line_ranges(std::string_view before, std::string_view now,
                                                             int max_edits) {
  std::vector<std::string_view> a = lines_of(before), b = lines_of(now);
  // The common first and last lines are kept; only what lies between is diffed.
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  std::vector<std::string_view> mid_a(a.begin() + ptrdiff_t(prefix), a.end() - ptrdiff_t(suffix));
  std::vector<std::string_view> mid_b(b.begin() + ptrdiff_t(prefix), b.end() - ptrdiff_t(suffix));
  std::vector<bool> kept = mid_a.empty() ? std::vector<bool>(mid_b.size(), false)
                                         : kept_lines(mid_a, mid_b, max_edits).value_or(std::vector<bool>(mid_b.size(), false));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i]) continue;
    uint32_t line = uint32_t(prefix + i + 1);
    if (!out.empty() && out.back().second + 1 == line)
      out.back().second = line;
    else
      out.emplace_back(line, line);
  }
  return out;
}

}  // namespace tpulint::app
