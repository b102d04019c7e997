#include "core/suppressions.h"

#include <algorithm>
#include <map>
#include <optional>
#include <fmt/format.h>

#include "core/analyzer_notes.h"

namespace tpulint {

namespace {

enum class Scope { Line, NextLine, Disable, Enable, File };

struct Entry {
  std::string prefix;  // "" covers every check
  bool used = false;
};

struct Directive {
  Scope scope;
  uint32_t line;        // 1-based line of the comment
  ByteSpan span;        // the directive text, for notes
  std::vector<Entry> entries;
  uint32_t end_line = 0;  // Disable: the line of its enable (0: never enabled)
  bool all() const { return entries.size() == 1 && entries[0].prefix.empty(); }
};

bool covers(std::string_view prefix, std::string_view id) { return id.starts_with(prefix); }

std::string list_text(const Directive& d) {
  if (d.all()) return "";
  std::string out;
  for (const Entry& e : d.entries) out += (out.empty() ? "" : ",") + e.prefix;
  return "[" + out + "]";
}

std::string_view scope_name(Scope s) {
  switch (s) {
    case Scope::Line: return "ignore";
    case Scope::NextLine: return "ignore-next-line";
    case Scope::Disable: return "disable";
    case Scope::Enable: return "enable";
    case Scope::File: return "ignore-file";
  }
  return "";
}

// Whitespace as a regular expression's \s reads it in the "C" locale.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool is_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-'; }

// The directive whose comment marker is at `at`, if there is one.
std::optional<DirectiveText> directive_at(std::string_view line, size_t at, bool hash_comments) {
  size_t i = at;
  if (hash_comments ? line[i] == '#' : line.substr(i, 2) == "//" || line.substr(i, 2) == "/*")
    i += hash_comments ? 1 : 2;
  else
    return std::nullopt;
  auto skip_spaces = [&] {
    while (i < line.size() && is_space(line[i])) ++i;
  };
  skip_spaces();
  if (line.substr(i, 7) != "tpulint") return std::nullopt;
  i += 7;
  skip_spaces();
  if (i == line.size() || line[i] != ':') return std::nullopt;
  ++i;
  skip_spaces();
  DirectiveText d;
  d.begin = at;
  const size_t word = i;
  while (i < line.size() && is_word_char(line[i])) ++i;
  d.word = line.substr(word, i - word);
  skip_spaces();
  if (i < line.size() && line[i] == '[') {
    d.has_list = true;
    const size_t list = ++i;
    while (i < line.size() && line[i] != ']') ++i;
    d.list = line.substr(list, i - list);
    if (i < line.size()) {
      d.list_closed = true;
      ++i;
    }
  }
  d.end = i;
  return d;
}

// An entry of a directive's list: "TPU" and up to three digits.
bool is_check_prefix(std::string_view item) {
  return item.starts_with("TPU") && item.size() <= 6 &&
         std::all_of(item.begin() + 3, item.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<DirectiveText> find_directives(std::string_view line, bool hash_comments) {
  std::vector<DirectiveText> found;
  for (size_t at = 0; at < line.size();) {
    if (auto d = directive_at(line, at, hash_comments)) {
      at = d->end;  // never empty: it holds at least a marker and `tpulint:`
      found.push_back(*d);
    } else {
      ++at;
    }
  }
  return found;
}

void apply_suppressions(const SourceFile& file, std::vector<Finding>& findings, const SuppressionPolicy& policy) {
  std::erase_if(findings, [&](const Finding& f) { return !policy.enabled(f.check_id, file.path()); });

  const bool hash_comments = file.language() == Language::Python || file.language() == Language::Cmake;
  std::vector<Finding> notes_out;
  FindingSink notes(file, notes_out);
  auto invalid = [&](ByteSpan at, std::string message) {
    if (policy.enabled(notes::kInvalidSuppression.id, file.path())) notes.add(notes::kInvalidSuppression, at, std::move(message));
  };

  std::vector<Directive> directives;
  const std::string& text = file.text();
  // The lines that hold the word, found from its occurrences (most files have none, and a file
  // that names the tool in a docstring has a few).
  uint32_t last_line = 0;
  for (size_t at = text.find("tpulint"); at != std::string::npos; at = text.find("tpulint", at + 1)) {
    uint32_t line = file.position(uint32_t(at)).line;
    if (line == last_line) continue;
    last_line = line;
    std::string_view lt = file.line_text(line);
    uint32_t line_offset = uint32_t(lt.data() - text.data());
    for (const DirectiveText& found : find_directives(lt, hash_comments)) {
      ByteSpan span{line_offset + uint32_t(found.begin), line_offset + uint32_t(found.end)};
      std::string_view word = found.word;
      Directive d;
      d.line = line;
      d.span = span;
      if (word == "ignore") d.scope = Scope::Line;
      else if (word == "ignore-next-line") d.scope = Scope::NextLine;
      else if (word == "disable") d.scope = Scope::Disable;
      else if (word == "enable") d.scope = Scope::Enable;
      else if (word == "ignore-file") d.scope = Scope::File;
      else {
        invalid(span, fmt::format("unknown tpulint directive '{}': use ignore, ignore-next-line, disable, enable "
                                  "or ignore-file",
                                  word));
        continue;
      }
      if (found.has_list && !found.list_closed) {
        invalid(span, "unterminated list in a tpulint directive: close it with ']'");
        continue;
      }
      bool ok = true;
      if (found.has_list) {
        std::string_view list = found.list;
        size_t start = 0;
        while (start <= list.size()) {
          size_t comma = list.find(',', start);
          std::string item(list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
          item.erase(0, item.find_first_not_of(" \t"));
          item.erase(item.find_last_not_of(" \t") + 1);
          if (!is_check_prefix(item)) {
            invalid(span, fmt::format("'{}' is not a check ID or ID prefix (e.g. TPU201, TPU2)", item));
            ok = false;
          } else if (!policy.known(item)) {
            invalid(span, fmt::format("'{}' matches no check (see `tpulint checks`)", item));
            ok = false;
          } else {
            d.entries.push_back({item, false});
          }
          if (comma == std::string_view::npos) break;
          start = comma + 1;
        }
      } else {
        d.entries.push_back({"", false});
      }
      if (ok && !d.entries.empty()) directives.push_back(std::move(d));
    }
  }

  // Pair each enable with the open disables it closes (same list, or any for a bare enable).
  std::map<std::string, std::vector<size_t>> open_disables;  // not closed yet, by list text
  for (size_t i = 0; i < directives.size(); ++i) {
    Directive& d = directives[i];
    if (d.scope == Scope::Disable) open_disables[list_text(d)].push_back(i);
    if (d.scope != Scope::Enable) continue;
    auto close = [&](const std::vector<size_t>& open) {
      for (size_t j : open) directives[j].end_line = d.line;
    };
    bool closed = false;
    if (d.all()) {
      for (const auto& [list, open] : open_disables) close(open);
      closed = !open_disables.empty();
      open_disables.clear();
    } else if (auto it = open_disables.find(list_text(d)); it != open_disables.end()) {
      close(it->second);
      closed = true;
      open_disables.erase(it);
    }
    if (!closed) invalid(d.span, fmt::format("'tpulint: enable{}' has no matching disable above it", list_text(d)));
  }
  for (const Directive& d : directives)
    if (d.scope == Scope::Disable && !d.end_line)
      invalid(d.span, fmt::format("'tpulint: disable{}' is never enabled again: add 'tpulint: enable{}' after the "
                                  "block, or use ignore-file",
                                  list_text(d), list_text(d)));

  // Which findings the directives suppress, and which entries suppress one. Each directive covers
  // a range of lines; both questions are asked per check ID, of the sorted lines of its findings,
  // so that neither costs findings times directives (a file can hold many thousands of each).
  struct Lines {
    uint32_t first, last;
  };
  auto lines_of = [](const Directive& d) -> std::optional<Lines> {
    switch (d.scope) {
      case Scope::Line: return Lines{d.line, d.line};
      case Scope::NextLine: return Lines{d.line + 1, d.line + 1};
      case Scope::Disable: return Lines{d.line + 1, d.end_line ? d.end_line - 1 : UINT32_MAX};
      case Scope::File: return Lines{0, UINT32_MAX};
      case Scope::Enable: return std::nullopt;
    }
    return std::nullopt;
  };
  std::map<std::string, std::vector<uint32_t>> finding_lines;  // by check ID, ascending
  for (const Finding& f : findings) finding_lines[f.check_id].push_back(f.start.line);
  for (auto& [id, lines] : finding_lines) {
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  }
  std::map<std::string, std::vector<Lines>> suppressed;  // by check ID: the ranges that suppress it
  for (Directive& d : directives) {
    std::optional<Lines> range = lines_of(d);
    if (!range || range->first > range->last) continue;
    for (Entry& e : d.entries)
      for (const auto& [id, lines] : finding_lines) {
        if (!covers(e.prefix, id)) continue;
        auto at = std::lower_bound(lines.begin(), lines.end(), range->first);
        if (at == lines.end() || *at > range->last) continue;
        e.used = true;
        suppressed[id].push_back(*range);
      }
  }
  // Each ID's ranges, sorted by first line, with each one's last line raised to the furthest last
  // line so far: a line is suppressed if the last range starting at or before it reaches it.
  for (auto& [id, ranges] : suppressed) {
    std::sort(ranges.begin(), ranges.end(), [](Lines a, Lines b) { return a.first < b.first; });
    for (size_t i = 1; i < ranges.size(); ++i) ranges[i].last = std::max(ranges[i].last, ranges[i - 1].last);
  }
  std::erase_if(findings, [&](const Finding& f) {
    auto it = suppressed.find(f.check_id);
    if (it == suppressed.end()) return false;
    const std::vector<Lines>& ranges = it->second;
    auto after = std::upper_bound(ranges.begin(), ranges.end(), f.start.line,
                                  [](uint32_t line, Lines r) { return line < r.first; });
    return after != ranges.begin() && std::prev(after)->last >= f.start.line;
  });

  if (policy.enabled(notes::kUnusedSuppression.id, file.path())) {
    for (const Directive& d : directives) {
      if (d.scope == Scope::Enable) continue;
      for (const Entry& e : d.entries) {
        if (e.used) continue;
        if (!policy.runs(e.prefix, file.path())) continue;  // only a suppression of checks that ran can be unused
        notes.add(notes::kUnusedSuppression, d.span,
                  e.prefix.empty() ? fmt::format("'tpulint: {}' suppresses nothing here", scope_name(d.scope))
                                   : fmt::format("'tpulint: {}[...]' suppresses no '{}' finding here: remove '{}'",
                                                 scope_name(d.scope), e.prefix, e.prefix));
      }
    }
  }
  findings.insert(findings.end(), notes_out.begin(), notes_out.end());
}

}  // namespace tpulint
