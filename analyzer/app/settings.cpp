#include "app/settings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>

#include "checks/registry.h"
#include "core/result_cache.h"
#include "core/source_tree.h"
#include "report/visible_text.h"

namespace fs = std::filesystem;

namespace tpulint::app {

namespace {

// --file-timeout in seconds: 0 is no limit (as documented); otherwise from a millisecond, the
// timer's unit, to a week, which the worker pool's poll timeout still holds.
constexpr NumberRange kFileTimeoutRange{0.001, 7 * 24 * 3600, true};
// --max-worker-memory in megabytes: 0 is no limit; less than 64 MB cannot hold a parser.
constexpr NumberRange kWorkerMemoryRange{64, 1 << 20, true};

// Not CLI::Range: it lets "nan" through, as every comparison with NaN is false.
CLI::Validator number_in(NumberRange range) {
  return CLI::Validator(
      [range](std::string& input) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(input, v) && range.contains(v)) return {};
        return fmt::format("expects {}; got '{}'", range.describe(), input);
      },
      "NUMBER");
}

// A whole number from 1, written in decimal digits only: no sign, no exponent, no wrap-around.
std::optional<uint64_t> positive_integer(std::string_view text) {
  uint64_t v = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || v == 0) return std::nullopt;
  return v;
}

CLI::Validator byte_count() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        if (positive_integer(input)) return {};
        return fmt::format("expects a whole number of bytes from 1 to {}; got '{}'",
                           std::numeric_limits<uint64_t>::max(), input);
      },
      "BYTES");
}

std::pair<std::string, double> parse_weight_rule(const std::string& rule) {
  size_t eq = rule.rfind('=');
  if (eq != std::string::npos && eq > 0) {
    try {
      size_t used = 0;
      double weight = std::stod(rule.substr(eq + 1), &used);
      if (used == rule.size() - eq - 1 && kPathWeightRange.contains(weight)) return {rule.substr(0, eq), weight};
    } catch (const std::exception&) {
    }
  }
  throw UsageError(
      fmt::format("--path-weight expects GLOB=WEIGHT, WEIGHT {}; got '{}'", kPathWeightRange.describe(), rule));
}

// --shard K/N: returns K and sets `count` to N. Digits only: a sign, or a number past 32 bits, is
// an error, never wrapped around.
unsigned parse_shard(std::string_view text, unsigned& count) {
  size_t slash = text.find('/');
  auto k = positive_integer(text.substr(0, slash));
  auto n = slash == std::string_view::npos ? std::nullopt : positive_integer(text.substr(slash + 1));
  if (!k || !n || *k > *n || *n > std::numeric_limits<unsigned>::max())
    throw UsageError(fmt::format("--shard expects K/N, whole numbers with 1 <= K <= N; got '{}'", text));
  count = unsigned(*n);
  return unsigned(*k);
}

fs::path compile_commands_dir(const fs::path& given, std::string_view what) {
  fs::path p = given;
  if (p.filename() == "compile_commands.json") p = p.parent_path();
  std::error_code ec;
  if (!fs::is_regular_file(p / "compile_commands.json", ec))
    throw UsageError(fmt::format("{}: no compile_commands.json in '{}'", what, given.string()));
  return p;
}

}  // namespace

void add_report_options(CLI::App& cmd, ScanArgs& a) {
  cmd.add_option("--format", a.format, "report format on stdout: text, json, sarif, markdown, html, github, gitlab")
      ->check(CLI::IsMember(report::format_names()));
  cmd.add_option("--output", a.outputs, "also write a report: FORMAT=FILE (repeatable)");
  cmd.add_option("--fail-under", a.fail_under, "exit 1 if the score is below SCORE (0 to 100)")
      ->check(number_in(kFailUnderRange));
  cmd.add_option("--fail-on", a.fail_on,
                 "exit 1 if a reported finding reaches this severity (error, warning, info) or effort (high, medium, "
                 "low)")
      ->check(CLI::IsMember({"error", "warning", "info", "high", "medium", "low"}));
  cmd.add_flag("--fail-on-unanalyzed", a.fail_on_unanalyzed,
               "exit 1 if a Python, C/C++, CUDA or CMake file was skipped or its analysis stopped");
  cmd.add_flag("--exit-zero", a.exit_zero, "exit 0 even over a threshold (errors still exit 2)");
  cmd.add_flag("--statistics", a.statistics, "text: print the number of findings per check");
  cmd.add_flag("--explain-score", a.explain_score, "text: print the score's formula, weights and terms");
  cmd.add_flag("--summary", a.summary, "text: print only the summary, verdict and plan, not each finding");
  cmd.add_option("--compare", a.compare, "an earlier JSON report: show the score's change against it");
  cmd.add_option("--link-base", a.link_base,
                 "markdown, html: link each location to URL/path#Lline (an http or https URL, e.g. a blob URL at a "
                 "commit)")
      ->check(CLI::Validator(
          [](std::string& input) -> std::string {
            const std::string why = report::link_base_error(input);
            return why.empty() ? why : fmt::format("{}; got '{}'", why, report::visible_text(input));
          },
          "URL"));
  cmd.add_option("--color", a.color, "colour the text report: auto (a terminal, no NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd.add_option("--baseline", a.baseline, "report only findings not in this baseline (`tpulint baseline`)");
}

void add_scan_options(CLI::App& cmd, ScanArgs& a) {
  cmd.add_option("paths", a.paths, "files or directories to scan (default: .)");
  add_report_options(cmd, a);
  cmd.add_option("--select", a.select, "check IDs or prefixes to run (TPU2,TPU401; ALL)")->delimiter(',');
  cmd.add_option("--ignore", a.ignore, "check IDs or prefixes not to run")->delimiter(',');
  cmd.add_option("--exclude", a.exclude, "gitignore-style glob of paths to skip (repeatable; adds to the config's)");
  cmd.add_option("-j,--jobs", a.jobs, "worker threads (default: one per core)")->check(CLI::Range(1u, 1024u));
  cmd.add_option("-p,--compile-commands", a.compile_commands,
                 "directory holding compile_commands.json (default: the root or root/build, if present)");
  cmd.add_option("--target", a.target,
                 "the TPU stack you port to: torch-xla, jax or tf; the checks about other frameworks are left out")
      ->check(CLI::IsMember({"torch-xla", "jax", "tf"}));
  cmd.add_option("--max-file-size", a.max_file_size, "skip files larger than BYTES (default: 10 MiB)")
      ->check(byte_count());
  cmd.add_flag("--no-gitignore", a.no_gitignore, "scan files that .gitignore excludes");
  cmd.add_flag("--force-exclude", a.force_exclude,
               "apply the excludes to paths named on the command line too (as pre-commit names staged files)");
  cmd.add_option("--path-weight", a.path_weights,
                 "GLOB=WEIGHT: how much findings under GLOB count in the score, 0 to 1000 (repeatable; last match "
                 "wins)");
  cmd.add_option("--auxiliary-weight", a.auxiliary_weight,
                 "weight of tests/, benchmarks/, examples/, docs/ in the score, 0 to 1 (default 0.25)")
      ->check(number_in(kAuxiliaryWeightRange));
  cmd.add_option("--config", a.config, "configuration file (default: the nearest .tpulint.toml or pyproject.toml "
                                       "with [tool.tpulint])");
  cmd.add_flag("--isolated", a.isolated, "ignore every configuration file");
  cmd.add_option("--diff", a.diff, "report only findings on lines added or changed since BASE_REF (git)");
  cmd.add_flag("--diff-score", a.diff_score, "with --diff: also score BASE_REF and show the change");
  cmd.add_option("--shard", a.shard, "K/N: scan only shard K of N (by a hash of each path); `tpulint merge` "
                                     "combines the N JSON reports");
  cmd.add_option("--file-timeout", a.file_timeout,
                 "seconds one file may take before its analysis is stopped (a TPU903 note): 0.001 to 604800 (a "
                 "week), or 0 for no limit (default 120)")
      ->check(number_in(kFileTimeoutRange));
  cmd.add_option("--cxx-time-budget", a.cxx_time_budget,
                 "seconds of CPU Clang may spend on one C/C++/CUDA file; past them the file is analyzed in its "
                 "tokens only (a TPU906 note): 0.001 to 604800, or 0 for no budget (default 10)")
      ->check(number_in(kCxxTimeBudgetRange));
  cmd.add_option("--max-worker-memory", a.max_worker_memory,
                 "megabytes of memory one file's analysis may use before it is stopped (a TPU903 note): 64 to "
                 "1048576, or 0 for no limit (default 2048)")
      ->check(number_in(kWorkerMemoryRange));
  cmd.add_flag("--in-process", a.in_process, "analyze in threads of this process, not in worker processes "
                                            "(for debugging: a crash then ends the run)")
      ->group("");
  cmd.add_flag("--parse-only", a.parse_only, "parse every file, run no check (the benchmark's floor)")->group("");
  cmd.add_flag("--no-cache", a.no_cache, "analyze every file, neither reading nor writing the result cache");
  cmd.add_option("--cache-dir", a.cache_dir, "where to cache results (default: $XDG_CACHE_HOME/tpulint or "
                                             "~/.cache/tpulint)");
}

ScanSettings resolve_scan_settings(const ScanArgs& a) {
  std::optional<Config> config;
  if (!a.isolated) {
    if (!a.config.empty()) {
      if (!fs::is_regular_file(a.config)) throw UsageError(fmt::format("--config: no such file '{}'", a.config));
      config = read_named_config(a.config);
    } else {
      config = find_config(a.paths.empty() ? fs::path(".") : fs::path(a.paths.front()));
    }
  }
  Config c = config.value_or(Config{});

  ScanSettings s;
  if (config) s.config_file = c.file;
  s.format = a.format;
  s.color = a.color;
  for (const std::string& o : a.outputs) {
    size_t eq = o.find('=');
    std::string format = o.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == o.size() || !report::is_format(format))
      throw UsageError(fmt::format("--output expects FORMAT=FILE with FORMAT one of {}; got '{}'",
                                   fmt::join(report::format_names(), ", "), o));
    s.outputs.emplace_back(format, o.substr(eq + 1));
  }

  // Each list is checked where it came from, so that a typo in the configuration names its key
  // and its file, not an option that was never given (the engine checks them again, as options).
  auto checked = [&](const std::vector<std::string>& given, const std::optional<std::vector<std::string>>& configured,
                     std::string_view option, std::string_view key) {
    if (!given.empty()) {
      checks::registry().require_known(given, option);
      return given;
    }
    if (configured) checks::registry().require_known(*configured, fmt::format("{}: '{}'", c.file.string(), key));
    return configured.value_or(std::vector<std::string>{});
  };
  s.engine.select = checked(a.select, c.select, "--select", "select");
  s.engine.ignore = checked(a.ignore, c.ignore, "--ignore", "ignore");
  s.engine.per_path_ignores = c.per_path_ignores;
  if (std::string target = !a.target.empty() ? a.target : c.target.value_or(""); !target.empty())
    s.engine.target = framework_for_target(target);
  if (a.compile_commands) {
    s.engine.compile_database_dir = compile_commands_dir(*a.compile_commands, "-p");
    s.engine.compile_database_origin = cxx::DatabaseOrigin::User;
  } else if (c.compile_commands) {
    // Named by the project's configuration, part of the scanned tree: untrusted like the tree,
    // it may only name a database inside it (read, with no symlink followed, by the engine).
    std::string what = c.file.string() + ": compile-commands";
    fs::path dir = *c.compile_commands;
    if (dir.filename() == "compile_commands.json") dir = dir.parent_path();
    auto rel = SourceTree(c.dir).relative_path(dir);
    if (!rel) throw UsageError(fmt::format("{}: '{}' is outside the project ({})", what, dir.string(), c.dir.string()));
    if (SourceTree(c.dir).kind(rel->empty() ? "compile_commands.json" : *rel + "/compile_commands.json") ==
        EntryKind::Missing)
      throw UsageError(fmt::format("{}: no compile_commands.json in '{}'", what, dir.string()));
    s.engine.compile_database_dir = dir;
    s.engine.compile_database_origin = cxx::DatabaseOrigin::Tree;
  }

  ScanRequest& r = s.request;
  r.paths = a.paths;
  r.discovery.excludes = c.exclude;
  r.discovery.excludes.insert(r.discovery.excludes.end(), a.exclude.begin(), a.exclude.end());
  r.discovery.respect_gitignore = a.no_gitignore ? false : c.respect_gitignore.value_or(true);
  r.discovery.force_exclude = a.force_exclude || c.force_exclude.value_or(false);
  // The configuration's directory is the project root: its globs and the reported paths are
  // relative to it, whichever subdirectory is scanned.
  if (config) r.discovery.root = c.dir;
  r.jobs = a.jobs.value_or(0);
  r.max_file_size = a.max_file_size.value_or(c.max_file_size.value_or(kDefaultMaxFileSize));
  r.path_weights.auxiliary = a.auxiliary_weight.value_or(c.auxiliary_weight.value_or(PathWeights{}.auxiliary));
  r.path_weights.rules = c.path_weights;
  for (const std::string& rule : a.path_weights) r.path_weights.rules.push_back(parse_weight_rule(rule));

  s.fail_under = a.fail_under ? a.fail_under : c.fail_under;
  // A score gates only when it is the repository's: not that of files named one by one (the
  // staged files pre-commit passes), whichever set the threshold. A --diff run is about a change:
  // the configuration's threshold, the repository's standing policy, is left to full scans, and
  // one given with --diff is applied to the tree's score.
  if (s.fail_under) {
    const auto named_files = std::count_if(a.paths.begin(), a.paths.end(), [](const std::string& p) {
      std::error_code ec;
      return !fs::is_directory(p, ec);
    });
    if (named_files)
      s.fail_under_not_applied = fmt::format(
          "fail-under {:g} not applied: the score of {} file{} named on the command line is not the repository's",
          *s.fail_under, named_files, named_files == 1 ? "" : "s");
    else if (!a.diff.empty() && !a.fail_under)
      s.fail_under_not_applied = fmt::format(
          "fail-under {:g} (from {}) not applied with --diff: only what the change adds counts; give --fail-under "
          "to gate on the tree's score",
          *s.fail_under, c.file.filename().string());
    if (!s.fail_under_not_applied.empty()) s.fail_under.reset();
  }
  s.fail_on = a.fail_on ? a.fail_on : c.fail_on;
  s.fail_on_unanalyzed = a.fail_on_unanalyzed || c.fail_on_unanalyzed.value_or(false);
  s.exit_zero = a.exit_zero;
  if (!a.baseline.empty()) {
    if (!fs::is_regular_file(a.baseline)) throw UsageError(fmt::format("--baseline: no such file '{}'", a.baseline));
    s.baseline = BaselineFile{a.baseline, std::nullopt, "--baseline"};
  } else if (c.baseline) {
    // Read when a scan needs it: `tpulint baseline` makes the file the key names.
    s.baseline = BaselineFile{c.dir, *c.baseline, fmt::format("{}: 'baseline'", c.file.string())};
  }
  if (!a.diff.empty()) s.diff_base = a.diff;
  if (a.diff_score && a.diff.empty()) throw UsageError("--diff-score needs --diff BASE_REF");
  s.diff_score = a.diff_score;

  if (!a.shard.empty()) r.shard_index = parse_shard(a.shard, r.shard_count);
  if (auto budget = a.cxx_time_budget ? a.cxx_time_budget : c.cxx_time_budget)
    s.engine.cxx_time_budget = std::chrono::milliseconds(std::llround(*budget * 1000));
  if (a.file_timeout) r.file_timeout = std::chrono::milliseconds(std::llround(*a.file_timeout * 1000));
  r.isolate = !a.in_process;
  if (a.max_worker_memory) r.worker_memory_limit = *a.max_worker_memory << 20;
  s.engine.parse_only = a.parse_only;
  if (!a.no_cache && !a.parse_only) s.engine.cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);

  s.report.statistics = a.statistics;
  s.report.explain_score = a.explain_score;
  s.report.summary_only = a.summary;
  s.report.link_base = a.link_base;
  return s;
}

}  // namespace tpulint::app
