// Every report format behind one entry point. Reporters read a ScanReport and the Registry
// (for the checks' metadata) and nothing else; the CLI picks formats by name.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"
#include "core/scan.h"

namespace tpulint::report {

struct ReportOptions {
  bool color = false;           // text: ANSI colours
  bool statistics = false;      // text: counts per check
  bool explain_score = false;   // text: the formula, weights and each check's share
  bool summary_only = false;    // text: the summary, verdict and plan, without the findings
  std::optional<double> previous_score;  // text/markdown: an earlier score (--compare, --diff-score)
  std::string previous_label = "the compared report";  // what that score is of, e.g. "main"
  std::string link_base;        // markdown, html: prefix of file links (source_link), e.g. a blob URL at a commit
  size_t max_sarif_results = 25000;  // SARIF: keep the most severe this many results
  // Markdown: the most bytes to write. GitHub refuses a comment over 65,536 characters, and a
  // character is at least one byte of UTF-8; a longer report is cut to fit (write_markdown).
  size_t max_markdown_bytes = 65536;
};

// "text", "json", "sarif", "markdown", "html", "github", "gitlab"
const std::vector<std::string>& format_names();
bool is_format(std::string_view name);

// The effort of a report in words, its scope said: "12.0-40.0 engineer-hours (1.5-5.0
// engineer-days) in the core code; 15.0-52.0 with tests, examples and benchmarks". `dash` joins
// the ends of a range ("-" in plain text, "–" in Markdown and HTML).
std::string effort_text(const ScoreSummary& s, std::string_view dash = "-");

// A work item's score gain: "+1.4", or "+<0.1" for a gain too small to show but not nothing.
std::string gain_text(double gain);

// Why `base` cannot prefix the reports' source links, or "" if it can: an absolute http or https
// URL with a host, written in URL characters only (printable ASCII but space, quotes, angle
// brackets, backslash, caret, backtick, braces and '|'), with no query or fragment, since the
// file's path and "#Lline" follow it. A link base is given by whoever runs the scan, but lands in
// an href of every finding: a `javascript:` URL or a quote must never get there.
std::string link_base_error(std::string_view base);

// The URL of a file's line, GitHub style: `base`/path#Lline ("path#Lline", relative, when `base`
// is empty), the path percent-encoded (every byte but unreserved characters and '/'), so no
// character of a scanned file's name can end the link or change what it points to. `line` is in
// the file itself: in a notebook, in its JSON text (docs/notebooks.md), where GitHub shows it.
std::string source_link(std::string_view base, std::string_view path, uint32_t line);

// Throws std::invalid_argument for an unknown format.
void write_report(std::string_view format, const ScanReport& report, const Registry& registry,
                  const ReportOptions& options, std::ostream& out);

}  // namespace tpulint::report
