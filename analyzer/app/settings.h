// What `tpulint scan` (and `tpulint baseline`) do, resolved once from the command line and the
// configuration file: the command line wins over the file, the file over the defaults.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/engine.h"
#include "core/config.h"
#include "report/formats.h"

namespace tpulint::app {

// A bad command line or configuration: reported in one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The raw command-line values; unset options stay unset so the configuration can fill them.
struct ScanArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::vector<std::string> outputs;  // FORMAT=FILE
  std::vector<std::string> select, ignore, exclude, path_weights;
  std::optional<unsigned> jobs;
  std::optional<std::string> compile_commands;
  std::optional<double> fail_under;
  std::optional<std::string> fail_on;
  bool fail_on_unanalyzed = false;
  bool exit_zero = false;
  std::optional<uint64_t> max_file_size;
  bool no_gitignore = false;
  bool force_exclude = false;
  std::optional<double> auxiliary_weight;
  std::string color = "auto";
  bool statistics = false, explain_score = false, summary = false;
  std::string compare, link_base;
  std::string config;  // --config FILE
  bool isolated = false;
  std::string baseline;  // --baseline FILE
  std::string diff;      // --diff BASE_REF
  bool diff_score = false;
  // -o FILE: where the command writes what it would print: `scan`'s and `merge`'s report (in
  // --format), `baseline`'s baseline file.
  std::string output_file;
  bool no_cache = false;
  std::string cache_dir;
  std::string shard;  // K/N
  std::string target;  // --target torch-xla|jax|tf
  std::optional<double> file_timeout;  // seconds
  std::optional<double> cxx_time_budget;  // seconds
  std::optional<uint64_t> max_worker_memory;  // megabytes
  bool in_process = false;
  bool parse_only = false;
  std::string timings;  // `scan --timings FILE`: each analyzed file's time, tab-separated
};

// Declares the reporting and threshold options, the ones `merge` takes too, on a subcommand.
void add_report_options(CLI::App& command, ScanArgs& args);

// Declares the options shared by `scan` and `baseline` on a subcommand (the reporting ones too).
void add_scan_options(CLI::App& command, ScanArgs& args);

// The baseline whose findings a scan hides: --baseline FILE, or the configuration's `baseline`.
struct BaselineFile {
  std::filesystem::path path;  // --baseline's as given; the configuration's directory for its own
  // The configuration's: the file's path beneath `path`, read there following no symlink (the
  // configuration comes with the scanned tree).
  std::optional<std::string> in_tree;
  std::string origin;  // what names it, for errors: "--baseline", "pyproject.toml: 'baseline'"
};

struct ScanSettings {
  EngineOptions engine;
  ScanRequest request;
  report::ReportOptions report;
  std::string format;
  std::string color;
  std::vector<std::pair<std::string, std::filesystem::path>> outputs;  // format, file
  std::optional<double> fail_under;
  // Why a fail-under that would apply is not applied, said once on stderr: the score is not the
  // repository's (files named one by one), or the run is about a change (--diff).
  std::string fail_under_not_applied;
  std::optional<std::string> fail_on;
  bool fail_on_unanalyzed = false;  // exit 1 when a code file was not analyzed
  bool exit_zero = false;
  std::optional<BaselineFile> baseline;
  std::optional<std::string> diff_base;
  bool diff_score = false;
  std::optional<std::filesystem::path> config_file;  // the configuration that applied, if any
};

// Finds and reads the configuration (unless --isolated), merges it with the command line, and
// checks every value. Throws UsageError or ConfigError.
ScanSettings resolve_scan_settings(const ScanArgs& args);

}  // namespace tpulint::app
