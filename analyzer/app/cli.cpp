#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "app/engine.h"
#include "checks/registry.h"
#include "core/version.h"
#include "python/syntax.h"
#include "report/check_docs.h"
#include "report/formats.h"

namespace fs = std::filesystem;

namespace tpulint::app {

namespace {

struct ScanArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::vector<std::string> outputs;  // FORMAT=FILE
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  std::vector<std::string> exclude;
  unsigned jobs = 0;
  std::string compile_commands;
  double fail_under = -1;
  uint64_t max_file_size = kDefaultMaxFileSize;
  bool no_gitignore = false;
  std::string color = "auto";
  std::vector<std::string> path_weights;  // GLOB=WEIGHT
  double auxiliary_weight = PathWeights{}.auxiliary;
  bool statistics = false;
  bool explain_score = false;
  std::string compare;    // an earlier JSON report
  std::string link_base;  // markdown links
};


bool color_wanted(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return isatty(fd);
}

std::string render(const ScanReport& report, const std::string& format, report::ReportOptions options) {
  std::ostringstream ss;
  report::write_report(format, report, checks::registry(), options, ss);
  return ss.str();
}

// The score of an earlier JSON report, for --compare.
double previous_score(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("--compare: cannot read '{}'", path));
  try {
    auto j = nlohmann::json::parse(in);
    return j.at("score").get<double>();
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("--compare: '{}' is not a tpulint JSON report ({})", path, e.what()));
  }
}

// Writes through a temporary file and a rename, so a reader never sees half a report.
void write_file_atomically(const fs::path& path, const std::string& content) {
  fs::path tmp = path;
  tmp += fmt::format(".tmp.{}", getpid());
  {
    std::ofstream o(tmp, std::ios::binary);
    o << content;
    o.flush();
    if (!o) throw std::runtime_error(fmt::format("cannot write '{}'", tmp.string()));
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot write '{}'", path.string()));
  }
}

int run_scan(const ScanArgs& a, std::ostream& out, std::ostream& err) {
  std::vector<std::pair<std::string, fs::path>> outputs;
  for (const std::string& o : a.outputs) {
    size_t eq = o.find('=');
    std::string format = o.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == o.size() || !report::is_format(format)) {
      err << fmt::format("tpulint: error: --output expects FORMAT=FILE with FORMAT one of {}; got '{}'\n",
                         fmt::join(report::format_names(), ", "), o);
      return kExitError;
    }
    outputs.emplace_back(format, o.substr(eq + 1));
  }

  EngineOptions options;
  options.select = a.select;
  options.ignore = a.ignore;
  if (!a.compile_commands.empty()) {
    fs::path p = a.compile_commands;
    if (p.filename() == "compile_commands.json") p = p.parent_path();
    if (!fs::is_regular_file(p / "compile_commands.json")) {
      err << fmt::format("tpulint: error: -p: no compile_commands.json in '{}'\n", a.compile_commands);
      return kExitError;
    }
    options.compile_database_dir = p;
  }
  ScanRequest request;
  request.paths = a.paths;
  request.discovery.excludes = a.exclude;
  request.discovery.respect_gitignore = !a.no_gitignore;
  request.jobs = a.jobs;
  request.max_file_size = a.max_file_size;
  request.path_weights.auxiliary = a.auxiliary_weight;
  for (const std::string& rule : a.path_weights) {
    size_t eq = rule.rfind('=');
    double weight = -1;
    if (eq != std::string::npos && eq > 0) {
      try {
        size_t used = 0;
        weight = std::stod(rule.substr(eq + 1), &used);
        if (used != rule.size() - eq - 1) weight = -1;
      } catch (const std::exception&) {
      }
    }
    if (weight < 0) {
      err << fmt::format("tpulint: error: --path-weight expects GLOB=WEIGHT with a weight >= 0; got '{}'\n", rule);
      return kExitError;
    }
    request.path_weights.rules.emplace_back(rule.substr(0, eq), weight);
  }

  report::ReportOptions ropts;
  ropts.statistics = a.statistics;
  ropts.explain_score = a.explain_score;
  ropts.link_base = a.link_base;
  if (!a.compare.empty()) ropts.previous_score = previous_score(a.compare);

  Engine engine(options);
  ScanReport report = engine.scan(request);

  report::ReportOptions to_stdout = ropts;
  to_stdout.color = color_wanted(a.color, STDOUT_FILENO);
  out << render(report, a.format, to_stdout);
  out.flush();
  for (const auto& [format, path] : outputs) write_file_atomically(path, render(report, format, ropts));

  if (a.fail_under >= 0 && report.score.score < a.fail_under) {
    err << fmt::format("tpulint: score {:.1f} is under --fail-under {:g}\n", report.score.score, a.fail_under);
    return kExitThreshold;
  }
  return kExitOk;
}

int run_docs(const std::string& dir, std::ostream& out) {
  fs::create_directories(dir);
  const Registry& registry = checks::registry();
  for (const CheckInfo* c : registry.all())
    write_file_atomically(fs::path(dir) / fmt::format("{}.md", c->id), report::check_doc_markdown(*c));
  write_file_atomically(fs::path(dir) / "README.md", report::catalogue_markdown(registry));
  out << fmt::format("wrote {} check pages and README.md to {}\n", registry.all().size(), dir);
  return kExitOk;
}

}  // namespace

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"tpulint: finds what stops ML code moving from NVIDIA GPUs to TPUs, and scores how far it is"};
  app.set_version_flag("--version", fmt::format("{} {}", kToolName, kToolVersion));
  app.require_subcommand(1);

  ScanArgs scan;
  CLI::App* scan_cmd = app.add_subcommand("scan", "scan files and directories; print findings, score, effort, verdict");
  scan_cmd->add_option("paths", scan.paths, "files or directories to scan (default: .)");
  scan_cmd->add_option("--format", scan.format, "report format on stdout: text, json, sarif, markdown, html, github")
      ->check(CLI::IsMember(report::format_names()));
  scan_cmd->add_option("--output", scan.outputs, "also write a report: FORMAT=FILE (repeatable)");
  scan_cmd->add_option("--select", scan.select, "check IDs or prefixes to run (TPU2,TPU401; ALL)")->delimiter(',');
  scan_cmd->add_option("--ignore", scan.ignore, "check IDs or prefixes not to run")->delimiter(',');
  scan_cmd->add_option("--exclude", scan.exclude, "gitignore-style glob of paths to skip (repeatable)");
  scan_cmd->add_option("-j,--jobs", scan.jobs, "worker threads (default: one per core)")->check(CLI::Range(1u, 1024u));
  scan_cmd->add_option("-p,--compile-commands", scan.compile_commands,
                       "directory holding compile_commands.json (default: the root or root/build, if present)");
  scan_cmd->add_option("--fail-under", scan.fail_under, "exit 1 if the score is below SCORE")->check(CLI::Range(0.0, 100.0));
  scan_cmd->add_option("--max-file-size", scan.max_file_size, "skip files larger than BYTES (default: 10 MiB)")
      ->check(CLI::PositiveNumber);
  scan_cmd->add_flag("--no-gitignore", scan.no_gitignore, "scan files that .gitignore excludes");
  scan_cmd->add_option("--path-weight", scan.path_weights,
                       "GLOB=WEIGHT: how much findings under GLOB count in the score (repeatable; last match wins)");
  scan_cmd->add_option("--auxiliary-weight", scan.auxiliary_weight,
                       "weight of tests/, benchmarks/, examples/, docs/ in the score (default 0.25)")
      ->check(CLI::Range(0.0, 1.0));
  scan_cmd->add_flag("--statistics", scan.statistics, "text: print the number of findings per check");
  scan_cmd->add_flag("--explain-score", scan.explain_score, "text: print the score's formula, weights and terms");
  scan_cmd->add_option("--compare", scan.compare, "an earlier JSON report: show the score's change against it");
  scan_cmd->add_option("--link-base", scan.link_base, "markdown: URL prefix for file links (e.g. a blob URL at a commit)");
  scan_cmd->add_option("--color", scan.color, "colour the text report: auto (a terminal, no NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

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
    if (app.got_subcommand("checks")) {
      out << report::catalogue_table(checks::registry());
      return kExitOk;
    }
    if (*explain_cmd) {
      const CheckInfo* c = checks::registry().find(explain_id);
      if (!c) {
        err << fmt::format("tpulint: error: unknown check '{}' (see `tpulint checks`)\n", explain_id);
        return kExitError;
      }
      out << report::check_doc_markdown(*c);
      return kExitOk;
    }
    if (*docs_cmd) return run_docs(docs_dir, out);
    if (*dump_cmd) {
      std::ifstream in(dump_path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      std::string source = text.str();
      python::Parser parser;
      out << python::to_sexp(*parser.parse(source)) << "\n";
      return kExitOk;
    }
  } catch (const std::exception& e) {
    err << "tpulint: error: " << e.what() << "\n";
    return kExitError;
  }
  return kExitError;
}

}  // namespace tpulint::app
