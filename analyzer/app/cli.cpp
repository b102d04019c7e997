#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

#include "app/engine.h"
#include "app/git_diff.h"
#include "app/merge.h"
#include "app/output.h"
#include "app/settings.h"
#include "checks/registry.h"
#include "cxx/clang_frontend.h"
#include "core/fingerprint.h"
#include "core/source_tree.h"
#include "core/version.h"
#include "python/syntax.h"
#include "report/check_docs.h"
#include "report/formats.h"
#include "report/timings.h"
#include "report/visible_text.h"

namespace fs = std::filesystem;

namespace tpulint::app {

namespace {

bool color_wanted(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return isatty(fd);
}

std::string render(const ScanReport& report, const std::string& format, const report::ReportOptions& options) {
  std::ostringstream ss;
  report::write_report(format, report, checks::registry(), options, ss);
  return std::move(ss).str();  // C++20: moves the buffer out instead of copying tens of MB
}

nlohmann::json parse_json(std::string_view text, std::string_view name, std::string_view option) {
  try {
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: '{}' is not valid JSON ({})", option, name, e.what()));
  }
}

nlohmann::json read_json(const fs::path& path, std::string_view option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read '{}'", option, path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return parse_json(text.str(), path.string(), option);
}

// The score of an earlier JSON report, for --compare.
double previous_score(const fs::path& path) {
  auto j = read_json(path, "--compare");
  if (!j.is_object() || !j.contains("score") || !j["score"].is_number())
    throw UsageError(fmt::format("--compare: '{}' is not a tpulint JSON report", path.string()));
  return j["score"].get<double>();
}

// `scan --timings FILE`: the table to FILE, a summary per frontend to stderr.
void write_timings(const ScanReport& report, const fs::path& path, std::ostream& err) {
  std::ostringstream table;
  report::write_timings_tsv(report, table);
  write_output_file(path, table.str());
  std::istringstream summary(report::format_time_summaries(report::summarize_times(report)));
  for (std::string line; std::getline(summary, line);) err << "tpulint: timings: " << line << "\n";
  err << fmt::format("tpulint: timings: one line per file in {}\n", path.string());
}

// The baseline file's format. A file of another format holds fingerprints of another definition
// (version 1 hashed the message and the whole line), which would match nothing and make every
// accepted finding new: it is refused, with how to make it again.
constexpr int kBaselineVersion = 2;

// The baseline file: the fingerprints of accepted findings, with enough to read it by eye.
std::string baseline_json(const ScanReport& report) {
  nlohmann::ordered_json doc;
  doc["tool"] = kToolName;
  doc["version"] = kToolVersion;
  doc["baseline_version"] = kBaselineVersion;
  auto prints = fingerprints(report.findings);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    list.push_back({{"fingerprint", prints[i]}, {"id", f.check_id}, {"path", f.path}, {"line", f.start.line},
                    {"message", f.message}});
  }
  doc["findings"] = list;
  return report::json_with_escaped_controls(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) + "\n";
}

// A baseline file is read whole; a larger one is refused.
constexpr uint64_t kMaxBaselineSize = uint64_t(256) << 20;

// The fingerprints of a baseline file. The configuration's is read beneath its directory,
// following no symlink, like any file of the scanned tree.
std::set<std::string> read_baseline(const BaselineFile& baseline) {
  const std::string& option = baseline.origin;
  std::string name = baseline.in_tree ? *baseline.in_tree : baseline.path.string();
  nlohmann::json j;
  if (baseline.in_tree) {
    FileRead read = SourceTree(baseline.path).read(*baseline.in_tree, kMaxBaselineSize);
    if (read.status == FileRead::Status::Missing)
      throw UsageError(fmt::format("{}: no such file '{}' (make it with `tpulint baseline . -o {}`)", option, name, name));
    if (read.status != FileRead::Status::Read)
      throw UsageError(fmt::format("{}: cannot read '{}': {}", option, name, read.reason()));
    j = parse_json(read.text, name, option);
  } else {
    j = read_json(baseline.path, option);
  }
  if (!j.is_object() || !j.contains("findings") || !j["findings"].is_array() || !j.contains("baseline_version"))
    throw UsageError(fmt::format("{}: '{}' is not a tpulint baseline (make one with `tpulint baseline`)", option, name));
  if (j["baseline_version"] != kBaselineVersion)
    throw UsageError(fmt::format(
        "{}: '{}' is a baseline of another version of tpulint (baseline_version {}, this one reads {}), whose "
        "fingerprints differ: make it again with `tpulint baseline PATH -o {}`",
        option, name, j["baseline_version"].dump(), kBaselineVersion, name));
  std::set<std::string> prints;
  for (const auto& f : j["findings"]) {
    if (!f.is_object() || !f.contains("fingerprint") || !f["fingerprint"].is_string())
      throw UsageError(fmt::format("{}: '{}' has an entry without a fingerprint", option, name));
    prints.insert(f["fingerprint"].get<std::string>());
  }
  return prints;
}

// A private directory under the system temp dir (never inside the scanned tree), removed on exit.
class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = (fs::temp_directory_path() / "tpulint-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

ScanReport run_engine(const ScanSettings& s) {
  Engine engine(s.engine);
  return engine.scan(s.request);
}

// 1 when the report is over a threshold (unless --exit-zero), with the reason on stderr.
int threshold_exit_code(const ScanSettings& s, const ScanReport& report, std::ostream& err) {
  int code = kExitOk;
  if (!s.fail_under_not_applied.empty()) err << "tpulint: " << s.fail_under_not_applied << "\n";
  if (s.fail_under && report.score.score < *s.fail_under) {
    err << fmt::format("tpulint: score {:.1f} is under --fail-under {:g}\n", report.score.score, *s.fail_under);
    code = kExitThreshold;
  }
  if (s.fail_on) {
    auto reaches = [&](const Finding& f) {
      const std::string& t = *s.fail_on;
      if (t == "error") return f.severity >= Severity::Error;
      if (t == "warning") return f.severity >= Severity::Warning;
      if (t == "info") return true;
      if (t == "high") return f.effort >= EffortClass::High;
      if (t == "medium") return f.effort >= EffortClass::Medium;
      return f.effort >= EffortClass::Low;
    };
    size_t n = std::count_if(report.findings.begin(), report.findings.end(), reaches);
    if (n) {
      err << fmt::format("tpulint: {} finding{} at or above --fail-on {}\n", n, n == 1 ? "" : "s", *s.fail_on);
      code = kExitThreshold;
    }
  }
  return s.exit_zero ? kExitOk : code;
}

// Says on stderr which code files the report cannot speak for. A scan that analyzed nothing is an
// error (exit 2), except a shard's, which may be handed no file; with --fail-on-unanalyzed (or the
// configuration's fail-on-unanalyzed) a file not analyzed is over a threshold (exit 1).
int unanalyzed_exit_code(const ScanSettings& s, const ScanReport& report, bool shard, std::ostream& err) {
  if (report.files.empty() && report.force_excluded > 0) {
    // Every path named was excluded (pre-commit staged only excluded files): nothing to do.
    err << fmt::format("tpulint: nothing to scan: the excludes cover every path named ({}; --force-exclude)\n",
                       report.force_excluded);
    return kExitOk;
  }
  if (report.analyzed == 0) {
    err << fmt::format("tpulint: no file was analyzed ({} skipped){}\n", report.skipped.size(),
                       shard ? " in this shard" : ": there is no verdict to give");
    if (!shard) return kExitError;
  }
  if (report.unanalyzed.empty()) return kExitOk;
  const size_t n = report.unanalyzed.size();
  err << fmt::format("tpulint: {} code file{} {} not analyzed; the report does not speak for {}:\n", n, n == 1 ? "" : "s",
                     n == 1 ? "was" : "were", n == 1 ? "it" : "them");
  constexpr size_t kListed = 5;
  for (size_t i = 0; i < n && i < kListed; ++i)
    err << fmt::format("  {}: {}\n", report::visible_text(report.unanalyzed[i].path), report::visible_text(report.unanalyzed[i].reason));
  if (n > kListed) err << fmt::format("  and {} more (the report lists them)\n", n - kListed);
  return s.fail_on_unanalyzed && !s.exit_zero ? kExitThreshold : kExitOk;
}

// The last scan's report lives until the process ends, and main() ends the process without
// freeing it: freeing a large report finding by finding was 7% of a cached million-line run.
// A second scan in the same process replaces (frees) the first one's.
ScanReport& kept_report() {
  static ScanReport report;
  return report;
}

// The --format report to standard output, or to `output_file` (-o) instead; then each --output.
void write_reports(const ScanReport& report, const ScanSettings& s, const std::string& output_file,
                   const report::ReportOptions& options, std::ostream& out) {
  if (!output_file.empty()) {
    write_output_file(output_file, render(report, s.format, options));
  } else {
    report::ReportOptions to_stdout = options;
    to_stdout.color = color_wanted(s.color, STDOUT_FILENO);
    report::write_report(s.format, report, checks::registry(), to_stdout, out);  // streamed: no copy of the report
    finish_stdout(out, "the report");
  }
  for (const auto& [format, path] : s.outputs) write_output_file(path, render(report, format, options));
}

int run_scan(const ScanArgs& args, std::ostream& out, std::ostream& err) {
  ScanSettings s = resolve_scan_settings(args);
  report::ReportOptions ropts = s.report;
  if (!args.compare.empty()) {
    ropts.previous_score = previous_score(args.compare);
    ropts.previous_label = "the compared report";
  }
  // Read first: a missing or stale baseline is an error before any time is spent scanning.
  const std::set<std::string> known = s.baseline ? read_baseline(*s.baseline) : std::set<std::string>{};

  ScanReport& report = kept_report() = run_engine(s);
  const fs::path& root = report.root;

  if (s.baseline) {
    hide_findings(report, [&](const Finding&, const std::string& print) { return !known.count(print); },
                  "in the baseline");
  }
  if (s.diff_base) {
    std::vector<std::string> paths;  // the files with findings: only their changes matter
    for (const Finding& f : report.findings)
      if (paths.empty() || paths.back() != f.path.view()) paths.emplace_back(f.path.view());
    ChangedLines changed = changed_lines(root, *s.diff_base, paths);
    hide_findings(report,
                  [&](const Finding& f, const std::string&) {
                    // A note about a whole file counts when the file changed at all.
                    return f.category == Category::AnalyzerNote && f.start.line == 1 ? changed.file_changed(f.path)
                                                                                     : changed.line_changed(f.path, f.start.line);
                  },
                  fmt::format("on lines unchanged since {}", *s.diff_base));
    if (s.diff_score) {
      TempDirectory tmp;
      ScanSettings before = s;
      fs::path tree = tmp.path() / "tree";
      fs::create_directory(tree);
      before.request.paths = {export_revision(root, *s.diff_base, tree).string()};
      before.request.discovery.root.reset();
      ropts.previous_score = run_engine(before).score.score;
      ropts.previous_label = *s.diff_base;
    }
  }

  write_reports(report, s, args.output_file, ropts, out);
  if (!args.timings.empty()) write_timings(report, args.timings, err);
  const int unanalyzed = unanalyzed_exit_code(s, report, s.request.shard_count > 1, err);
  return std::max(unanalyzed, threshold_exit_code(s, report, err));
}

struct MergeArgs {
  std::vector<std::string> inputs;
  ScanArgs report;  // the reporting and threshold options; scanning options are not used
};

int run_merge(const MergeArgs& args, std::ostream& out, std::ostream& err) {
  std::vector<std::pair<std::string, nlohmann::json>> inputs;
  for (const std::string& input : args.inputs) inputs.emplace_back(input, read_json(input, "merge"));
  ScanReport report = merge_reports(inputs);

  ScanArgs a = args.report;
  a.isolated = true;  // the shards' configuration is already in their reports
  ScanSettings s = resolve_scan_settings(a);
  report::ReportOptions ropts = s.report;
  if (!a.compare.empty()) {
    ropts.previous_score = previous_score(a.compare);
    ropts.previous_label = "the compared report";
  }
  if (s.baseline) {
    std::set<std::string> known = read_baseline(*s.baseline);
    hide_findings(report, [&](const Finding&, const std::string& print) { return !known.count(print); },
                  "in the baseline");
  }
  write_reports(report, s, a.output_file, ropts, out);
  const int unanalyzed = unanalyzed_exit_code(s, report, false, err);
  return std::max(unanalyzed, threshold_exit_code(s, report, err));
}

int run_baseline(const ScanArgs& args, std::ostream& out) {
  // What it writes is the baseline: a report option would be silently left unused.
  if (!args.outputs.empty() || args.format != "text")
    throw UsageError("baseline writes the baseline file (-o FILE) and no report: --format and --output are for `scan`");
  ScanSettings s = resolve_scan_settings(args);
  ScanReport report = run_engine(s);
  write_output_file(args.output_file, baseline_json(report));
  out << fmt::format("wrote {} finding{} to {}\n", report.findings.size(), report.findings.size() == 1 ? "" : "s",
                     args.output_file);
  finish_stdout(out, "the summary");
  return kExitOk;
}

int run_docs(const std::string& dir, std::ostream& out) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create the directory '{}': {}", dir, ec.message()));
  const Registry& registry = checks::registry();
  for (const CheckInfo* c : registry.all())
    write_output_file(fs::path(dir) / fmt::format("{}.md", c->id), report::check_doc_markdown(*c));
  write_output_file(fs::path(dir) / "README.md", report::catalogue_markdown(registry));
  out << fmt::format("wrote {} check pages and README.md to {}\n", registry.all().size(), dir);
  finish_stdout(out, "the summary");
  return kExitOk;
}

// The number of single-character edits (insert, delete, replace, swap two neighbours) that turn
// `a` into `b`: how far a mistyped word is from what was meant.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// Why `word`, the first argument, names no subcommand, with the nearest one shown in --help; or
// nothing when it names one. (CLI11 would take it for an argument and say "A subcommand is required".)
std::optional<std::string> unknown_subcommand(const CLI::App& app, std::string_view word) {
  std::vector<std::string> shown;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(std::string(word))) return std::nullopt;
    if (!sub->get_group().empty()) shown.push_back(sub->get_name());
  }
  std::string nearest;
  size_t best = 3;  // more edits than two is another word
  for (const std::string& name : shown)
    if (size_t d = edit_distance(word, name); d < best) {
      best = d;
      nearest = name;
    }
  if (!nearest.empty()) return fmt::format("unknown subcommand '{}'; did you mean '{}'?", word, nearest);
  return fmt::format("unknown subcommand '{}' (subcommands: {})", word, fmt::join(shown, ", "));
}

// Header-free only: a compile database is not looked for (the benchmark's repositories have none).
int run_clang_commands(const fs::path& root, const std::vector<std::string>& files, std::ostream& out) {
  cxx::load_clang_module();
  cxx::ClangFrontend frontend({.compile_database = nullptr, .tree_root = fs::absolute(root).lexically_normal()});
  for (const std::string& rel : files) {
    const fs::path path = fs::absolute(root / rel).lexically_normal();
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    SourceFile file(rel, path, language_for_path(path), text.str());
    const auto commands = frontend.commands(file);
    for (size_t i = 0; i < commands.size(); ++i)
      out << nlohmann::json{{"path", rel}, {"pass", i + 1 < commands.size() ? "device" : "host"}, {"arguments", commands[i]}}.dump()
          << "\n";
  }
  finish_stdout(out, "the commands");
  return kExitOk;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"tpulint: finds what stops ML code moving from NVIDIA GPUs to TPUs, and scores how far it is"};
  app.set_version_flag("--version", fmt::format("{} {}", kToolName, kToolVersion));
  app.require_subcommand(1);
  app.footer("Exit codes: 0 clean or under the thresholds, 1 over a threshold (--fail-under, --fail-on), "
             "2 usage or internal error, or output that could not be written.");

  ScanArgs scan;
  CLI::App* scan_cmd = app.add_subcommand("scan", "scan files and directories; print findings, score, effort, verdict");
  add_scan_options(*scan_cmd, scan);
  scan_cmd->add_option("-o,--output-file", scan.output_file,
                       "write the report (in --format) to FILE instead of standard output");
  scan_cmd->add_option("--timings", scan.timings,
                       "write each analyzed file's time (seconds, language, path; slowest first) to FILE, "
                       "and a summary per frontend to stderr (C/C++ headers analyzed together share their "
                       "task's time equally)");

  ScanArgs baseline;
  CLI::App* baseline_cmd =
      app.add_subcommand("baseline", "record today's findings, so that `scan --baseline FILE` reports only new ones");
  add_scan_options(*baseline_cmd, baseline);
  baseline_cmd->add_option("-o,--output-file", baseline.output_file, "the baseline file to write")->required();

  MergeArgs merge;
  CLI::App* merge_cmd =
      app.add_subcommand("merge", "combine the JSON reports of `scan --shard K/N` runs into one report");
  merge_cmd->add_option("reports", merge.inputs, "JSON reports of the shards")->required();
  add_report_options(*merge_cmd, merge.report);
  merge_cmd->add_option("-o,--output-file", merge.report.output_file,
                        "write the report (in --format) to FILE instead of standard output");

  app.add_subcommand("checks", "list every check");

  std::string explain_id;
  CLI::App* explain_cmd = app.add_subcommand("explain", "print a check's documentation");
  explain_cmd->add_option("ID", explain_id, "check ID, e.g. TPU201")->required();

  std::string docs_dir;
  CLI::App* docs_cmd = app.add_subcommand("docs", "write the checks' documentation pages");
  docs_cmd->add_option("--output-dir", docs_dir, "directory to write into")->required();

  std::string dump_path;
  CLI::App* dump_cmd = app.add_subcommand("dump-tree", "print a Python file's syntax tree (for writing checks)");
  dump_cmd->group("");  // hidden from --help: a tool for check authors
  dump_cmd->add_option("FILE", dump_path, "a Python file")->required()->check(CLI::ExistingFile);

  CLI::App* shim_cmd = app.add_subcommand("cuda-shim", "print the built-in CUDA declarations used without headers");
  shim_cmd->group("");  // hidden: for the benchmark's clang-19 comparison
  CLI::App* torch_shim_cmd = app.add_subcommand("torch-shim", "print the built-in torch declarations used without headers");
  torch_shim_cmd->group("");  // hidden, likewise

  std::string commands_root;
  std::vector<std::string> commands_files;
  CLI::App* commands_cmd = app.add_subcommand(
      "clang-commands", "print, as JSON lines, the clang command of each pass over each C/C++/CUDA FILE under ROOT");
  commands_cmd->group("");  // hidden: bench/cxx_real.py runs clang-19 -fsyntax-only with these
  commands_cmd->add_option("ROOT", commands_root, "the scan root")->required()->check(CLI::ExistingDirectory);
  commands_cmd->add_option("FILES", commands_files, "paths relative to ROOT")->required();

  if (argc > 1 && argv[1][0] != '-') {
    if (std::optional<std::string> message = unknown_subcommand(app, argv[1])) {
      err << "tpulint: error: " << report::visible_text(*message) << "\n";
      return kExitError;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    app.exit(e, out, err);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    app.exit(e, out, err);
    return kExitError;
  }

  try {
    if (*scan_cmd) return run_scan(scan, out, err);
    if (*baseline_cmd) return run_baseline(baseline, out);
    if (*merge_cmd) return run_merge(merge, out, err);
    if (app.got_subcommand("checks")) {
      out << report::catalogue_table(checks::registry());
      finish_stdout(out, "the list of checks");
      return kExitOk;
    }
    if (*explain_cmd) {
      // IDs are upper-case; `explain tpu201` means the same.
      std::transform(explain_id.begin(), explain_id.end(), explain_id.begin(),
                     [](unsigned char c) { return char(std::toupper(c)); });
      const CheckInfo* c = checks::registry().find(explain_id);
      if (!c) {
        err << fmt::format("tpulint: error: unknown check '{}' (see `tpulint checks`)\n", explain_id);
        return kExitError;
      }
      out << report::check_doc_markdown(*c);
      finish_stdout(out, "the check's documentation");
      return kExitOk;
    }
    if (*docs_cmd) return run_docs(docs_dir, out);
    if (*shim_cmd) {
      out << cxx::kCudaShim;
      finish_stdout(out, "the CUDA declarations");
      return kExitOk;
    }
    if (*torch_shim_cmd) {
      out << cxx::kTorchShim;
      finish_stdout(out, "the torch declarations");
      return kExitOk;
    }
    if (*commands_cmd) return run_clang_commands(commands_root, commands_files, out);
    if (*dump_cmd) {
      std::ifstream in(dump_path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      std::string source = text.str();
      python::Parser parser;
      out << python::to_sexp(*parser.parse(source)) << "\n";
      finish_stdout(out, "the syntax tree");
      return kExitOk;
    }
  } catch (const std::exception& e) {
    // A message may quote a scanned repository's text (a configuration key, a path).
    err << "tpulint: error: " << report::visible_text(e.what()) << "\n";
    return kExitError;
  }
  return kExitError;
}

}  // namespace tpulint::app
