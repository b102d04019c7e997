#include "report/timings.h"

#include <algorithm>
#include <iterator>
#include <fmt/format.h>

#include "report/visible_text.h"

namespace tpulint::report {

namespace {

// The summaries' frontends, in their order; C++ and CUDA are one frontend (Clang), and one goal
// in the benchmark.
constexpr std::string_view kFrontends[] = {"python", "c/c++/cuda", "cmake", "other"};

size_t frontend_of(Language l) {
  switch (l) {
    case Language::Python: return 0;
    case Language::Cxx:
    case Language::Cuda: return 1;
    case Language::Cmake: return 2;
    case Language::None: break;
  }
  return 3;
}

// Files analyzed in this run, slowest first, ties by path: the order of the TSV.
std::vector<const FileSummary*> timed_slowest_first(const ScanReport& report) {
  std::vector<const FileSummary*> timed;
  for (const FileSummary& f : report.files)
    if (f.analysis_time.count() > 0) timed.push_back(&f);
  std::sort(timed.begin(), timed.end(), [](const FileSummary* a, const FileSummary* b) {
    if (a->analysis_time != b->analysis_time) return a->analysis_time > b->analysis_time;
    return a->path < b->path;
  });
  return timed;
}

// Nearest rank over one frontend's files, slowest first: the ceil(n * percent / 100)-th smallest
// time, at least the first.
std::chrono::nanoseconds percentile(const std::vector<const FileSummary*>& slowest_first, unsigned percent) {
  const size_t n = slowest_first.size();
  const size_t rank = std::max<size_t>((n * percent + 99) / 100, 1);
  return slowest_first[n - rank]->analysis_time;
}

std::string duration(std::chrono::nanoseconds t) {
  const double s = std::chrono::duration<double>(t).count();
  if (s >= 1) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.1f} ms", s * 1e3);
  return fmt::format("{:.0f} us", s * 1e6);
}

}  // namespace

std::vector<TimeSummary> summarize_times(const ScanReport& report) {
  // The table's order split by frontend: each one's files stay slowest first, ties by path.
  std::vector<const FileSummary*> by_frontend[std::size(kFrontends)];
  for (const FileSummary* f : timed_slowest_first(report)) by_frontend[frontend_of(f->language)].push_back(f);
  std::vector<TimeSummary> out;
  for (size_t i = 0; i < std::size(kFrontends); ++i) {
    const std::vector<const FileSummary*>& files = by_frontend[i];
    if (files.empty()) continue;
    TimeSummary s;
    s.frontend = kFrontends[i];
    s.files = files.size();
    for (const FileSummary* f : files) s.total += f->analysis_time;
    s.median = percentile(files, 50);
    s.p95 = percentile(files, 95);
    s.max = files.front()->analysis_time;
    s.slowest = files.front()->path;
    out.push_back(std::move(s));
  }
  return out;
}

void write_timings_tsv(const ScanReport& report, std::ostream& out) {
  out << "seconds\tlanguage\tpath\n";
  for (const FileSummary* f : timed_slowest_first(report))
    out << fmt::format("{:.6f}\t{}\t{}\n", std::chrono::duration<double>(f->analysis_time).count(),
                       to_string(f->language), visible_field(f->path));
}

std::string format_time_summaries(const std::vector<TimeSummary>& summaries) {
  if (summaries.empty()) return "no file was analyzed in this run (the cache answered, or none was found)\n";
  std::string out;
  for (const TimeSummary& s : summaries)
    out += fmt::format("{} {} file{}: median {}, 95th percentile {}, slowest {} ({}), {} in all\n", s.files,
                       s.frontend, s.files == 1 ? "" : "s", duration(s.median), duration(s.p95), duration(s.max),
                       visible_text(s.slowest), duration(s.total));
  return out;
}

}  // namespace tpulint::report
