// `scan --timings FILE`: what each file cost the worker that analyzed it, for finding the files
// that make a scan slow and for the benchmark's time per file. Not part of any report format:
// times differ from run to run, and reports are the same for the same tree.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/scan.h"

namespace tpulint::report {

// The times of one frontend's files analyzed in this run. Percentiles are nearest-rank: the
// smallest time that at least that share of the files is at or under.
struct TimeSummary {
  std::string_view frontend;  // "python", "c/c++/cuda", "cmake"
  size_t files = 0;
  std::chrono::nanoseconds total{0}, median{0}, p95{0}, max{0};
  std::string slowest;  // the path of the file that took `max`
};

// One summary per frontend that analyzed a file in this run, in that order: files the cache
// answered and skipped files have no time and are not counted, nor is a file whose analysis
// crashed or ran past --file-timeout (its worker sent no result; the report has its TPU903 note).
std::vector<TimeSummary> summarize_times(const ScanReport& report);

// Tab-separated, a header line, then one line per file analyzed in this run, slowest first (ties
// by path): seconds (microsecond precision), language, path (as visible_field writes it: a tab,
// a line break or a backslash in a name is an escape, and cannot split a row).
void write_timings_tsv(const ScanReport& report, std::ostream& out);

// For stderr: one line per frontend, "N python files: median 1.2 ms, 95th percentile 4.0 ms,
// slowest 31.0 ms (pkg/big.py), 0.84 s in all" (the path as visible_text shows it); a line
// saying so when no file was analyzed.
std::string format_time_summaries(const std::vector<TimeSummary>& summaries);

}  // namespace tpulint::report
