#include "report/check_docs.h"

#include <fmt/format.h>

#include "core/version.h"

namespace tpulint::report {

namespace {

std::string languages_text(LanguageSet set) {
  std::string out;
  for (Language l : {Language::Python, Language::Cxx, Language::Cuda, Language::Cmake})
    if (contains(set, l)) out += (out.empty() ? "" : ", ") + std::string(to_string(l));
  return out;
}

std::string code_block(std::string_view code, std::string_view lang) {
  return fmt::format("```{}\n{}\n```\n", lang, code);
}

std::string_view code_lang(LanguageSet set) {
  if (contains(set, Language::Python)) return "python";
  return contains(set, Language::Cmake) ? "cmake" : "cpp";
}

std::string hours_text(HoursRange h) { return fmt::format("{:g}-{:g} h per finding", h.low, h.high); }

}  // namespace

std::string check_doc_markdown(const CheckInfo& c) {
  const CheckDoc& d = c.doc;
  std::string out;
  out += fmt::format("# {} {}\n\n", c.id, c.name);
  out += fmt::format("{}\n\n", c.summary);
  out += "| | |\n|---|---|\n";
  out += fmt::format("| category | {} ({}) |\n", to_string(c.category()), display_name(c.category()));
  out += fmt::format("| languages | {} |\n", languages_text(c.languages));
  if (c.framework != Framework::Any)
    out += fmt::format("| framework | {} (left out by `--target` for another framework) |\n", to_string(c.framework));
  out += fmt::format("| severity | {} |\n", to_string(c.severity));
  out += fmt::format("| effort | {}, {} |\n", to_string(c.effort), hours_text(c.hours));
  if (c.hot_path_only)
    out += "| reported in | the hot path and training loops only (docs/scoring.md, Contexts) |\n";
  if (c.outside_hot_path_only)
    out += "| reported in | everything but the hot path, where a loop is unrolled into one traced graph (docs/scoring.md, "
           "Contexts) |\n";
  if (contains(c.languages, Language::Python))
    out += fmt::format("| discounted in | {} |\n",
                       c.device_code_only ? "guarded, host-side, one-time and evaluation code (docs/scoring.md, Contexts)"
                                          : "guarded code (docs/scoring.md, Contexts)");
  out += "\n";
  out += fmt::format("## What it finds\n\n{}\n\n", d.what);
  out += fmt::format("## Why it matters on a TPU\n\n{}\n\n", d.why);
  if (!d.example.empty()) out += fmt::format("## Example\n\n{}\n", code_block(d.example, code_lang(c.languages)));
  out += fmt::format("## Use instead\n\n{}\n\n", d.use_instead);
  out += fmt::format("## Effort\n\n{}\n\n", d.effort);
  if (!d.heuristic.empty()) out += fmt::format("## How it decides, and where it can be wrong\n\n{}\n\n", d.heuristic);
  if (!d.references.empty()) {
    out += "## References\n\n";
    for (std::string_view r : d.references) out += fmt::format("- {}\n", r);
    out += "\n";
  }
  out += fmt::format("Suppress or select it by ID: `--ignore {}`, `--select {}`.\n", c.id, c.id.substr(0, 4));
  return out;
}

std::string catalogue_markdown(const Registry& registry) {
  std::string out =
      "# Checks\n\n"
      "Generated from the checks' metadata by `tpulint docs --output-dir docs/checks`; do not edit.\n"
      "A test fails when these pages are stale.\n\n"
      "| ID | name | languages | severity | effort | summary |\n|---|---|---|---|---|---|\n";
  for (const CheckInfo* c : registry.all())
    out += fmt::format("| [{}]({}.md) | {} | {} | {} | {} | {} |\n", c->id, c->id, c->name, languages_text(c->languages),
                       to_string(c->severity), to_string(c->effort), c->summary);
  return out;
}

std::string catalogue_table(const Registry& registry) {
  std::string out = fmt::format("{:<7} {:<28} {:<16} {:<8} {:<7} {}\n", "ID", "NAME", "LANGUAGES", "SEVERITY",
                                "EFFORT", "SUMMARY");
  for (const CheckInfo* c : registry.all())
    out += fmt::format("{:<7} {:<28} {:<16} {:<8} {:<7} {}\n", c->id, c->name, languages_text(c->languages),
                       to_string(c->severity), to_string(c->effort), c->summary);
  return out;
}

std::string check_doc_url(std::string_view id) {
  // The pages `make docs` writes (tpulint docs --output-dir docs/checks), as the main branch has them.
  return fmt::format("{}/blob/main/docs/checks/{}.md", kToolUrl, id);
}

}  // namespace tpulint::report
