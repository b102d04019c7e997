#include "report/timings.h"

#include <algorithm>
#include <fmt/format.h>

namespace tpulint::report {

namespace {

std::string_view frontend_of(Language l) {
  switch (l) {
    case Language::Python: return "python";
    case Language::Cxx:
    case Language::Cuda: return "c/c++/cuda";  // one frontend (Clang), one goal in the benchmark
    case Language::Cmake: return "cmake";
    case Language::None: break;
  }
  return "other";
}

constexpr std::string_view kFrontends[] = {"python", "c/c++/cuda", "cmake", "other"};

// Files analyzed in this run, slowest first, ties by path: the order of the TSV.
std::vector<const FileSummary*> timed_slowest_first(const ScanReport& report) {
  std::vector<const FileSummary*> timed;
  for (const FileSummary& f : report.files)
    if (f.analysis_time.count() > 0) timed.push_back(&f);
  std::stable_sort(timed.begin(), timed.end(), [](const FileSummary* a, const FileSummary* b) {
    if (a->analysis_time != b->analysis_time) return a->analysis_time > b->analysis_time;
    return a->path < b->path;
  });
  return timed;
}

// Nearest rank over times sorted in ascending order: the ceil(share * n)-th smallest.
std::chrono::nanoseconds percentile(const std::vector<std::chrono::nanoseconds>& ascending, unsigned percent) {
  const size_t n = ascending.size();
  size_t rank = (n * percent + 99) / 100;  // ceil(n * percent / 100), at least 1 when n > 0
  return ascending[std::max<size_t>(rank, 1) - 1];
}

std::string duration(std::chrono::nanoseconds t) {
  const double s = std::chrono::duration<double>(t).count();
  if (s >= 1) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.1f} ms", s * 1e3);
  return fmt::format("{:.0f} us", s * 1e6);
}

}  // namespace

std::vector<TimeSummary> summarize_times(const ScanReport& report) {
  std::vector<TimeSummary> out;
  for (std::string_view frontend : kFrontends) {
    std::vector<std::chrono::nanoseconds> times;
    TimeSummary s;
    s.frontend = frontend;
    for (const FileSummary& f : report.files) {
      if (f.analysis_time.count() <= 0 || frontend_of(f.language) != frontend) continue;
      times.push_back(f.analysis_time);
      s.total += f.analysis_time;
      if (f.analysis_time > s.max || (f.analysis_time == s.max && f.path < s.slowest)) {
        s.max = f.analysis_time;
        s.slowest = f.path;
      }
    }
    if (times.empty()) continue;
    std::sort(times.begin(), times.end());
    s.files = times.size();
    s.median = percentile(times, 50);
    s.p95 = percentile(times, 95);
    out.push_back(std::move(s));
  }
  return out;
}

void write_timings_tsv(const ScanReport& report, std::ostream& out) {
  out << "seconds\tlanguage\tpath\n";
  for (const FileSummary* f : timed_slowest_first(report))
    out << fmt::format("{:.6f}\t{}\t{}\n", std::chrono::duration<double>(f->analysis_time).count(),
                       to_string(f->language), f->path);
}

std::string format_time_summaries(const std::vector<TimeSummary>& summaries) {
  if (summaries.empty()) return "no file was analyzed in this run (the cache answered, or none was found)\n";
  std::string out;
  for (const TimeSummary& s : summaries)
    out += fmt::format("{} {} file{}: median {}, 95th percentile {}, slowest {} ({}), {} in all\n", s.files,
                       s.frontend, s.files == 1 ? "" : "s", duration(s.median), duration(s.p95), duration(s.max),
                       s.slowest, duration(s.total));
  return out;
}

}  // namespace tpulint::report
