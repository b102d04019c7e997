#include "core/fingerprint.h"

#include <fmt/format.h>
#include <map>

#include "core/discovery.h"
#include "core/scan.h"

namespace tpulint {

namespace {

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

std::vector<std::string> fingerprints(std::span<const Finding> findings) {
  std::vector<std::string> out;
  std::map<std::pair<std::string_view, uint64_t>, int> seen;
  for (const Finding& f : findings) {
    uint64_t h = fnv1a(f.check_id);
    const std::string code = line_code(f.source_line, language_for_path(f.path.view()));
    for (std::string_view part : {f.subject.view(), f.path.view(), std::string_view(code)}) {
      h = fnv1a("\x1f", h);
      h = fnv1a(part, h);
    }
    out.push_back(fmt::format("{:016x}:{}", h, ++seen[{f.path, h}]));
  }
  return out;
}

void hide_findings(ScanReport& report, const std::function<bool(const Finding&, const std::string&)>& keep,
                   std::string_view why) {
  std::vector<std::string> prints = fingerprints(report.findings);
  std::vector<Finding> kept;
  size_t hidden = 0;
  for (size_t i = 0; i < report.findings.size(); ++i) {
    if (keep(report.findings[i], prints[i]))
      kept.push_back(std::move(report.findings[i]));
    else
      ++hidden;
  }
  report.findings = std::move(kept);
  // Files count the findings still reported, so every format agrees.
  summarize_files(report);
  report.hidden.push_back({std::string(why), hidden});
}

}  // namespace tpulint
