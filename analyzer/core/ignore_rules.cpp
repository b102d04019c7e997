#include "core/ignore_rules.h"

namespace tpulint {

namespace {

// Matches a bracket class starting at p[pi] == '['. Sets `next` past the closing ']'.
// Returns false with next == npos if the class is unterminated (then '[' is a literal).
bool match_class(std::string_view p, size_t pi, char c, size_t& next) {
  size_t i = pi + 1;
  bool negate = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negate) ++i;
  bool matched = false;
  bool first = true;
  for (; i < p.size(); ++i) {
    if (p[i] == ']' && !first) {
      next = i + 1;
      return matched != negate && c != '/';
    }
    first = false;
    char lo = p[i];
    if (lo == '\\' && i + 1 < p.size()) lo = p[++i];
    char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hi = p[i + 2];
      if (hi == '\\' && i + 3 < p.size()) { hi = p[i + 3]; ++i; }
      i += 2;
    }
    if (lo <= c && c <= hi) matched = true;
  }
  next = std::string_view::npos;
  return false;
}

bool wildmatch(std::string_view p, size_t pi, std::string_view s, size_t si) {
  while (pi < p.size()) {
    char c = p[pi];
    if (c == '*') {
      bool double_star = pi + 1 < p.size() && p[pi + 1] == '*';
      while (pi < p.size() && p[pi] == '*') ++pi;
      if (double_star) {
        // "**/" matches zero or more whole directories; a trailing "**" matches everything.
        if (pi < p.size() && p[pi] == '/') {
          if (wildmatch(p, pi + 1, s, si)) return true;
          for (size_t k = si; k < s.size(); ++k)
            if (s[k] == '/' && wildmatch(p, pi + 1, s, k + 1)) return true;
          return false;
        }
        for (size_t k = si; k <= s.size(); ++k)
          if (wildmatch(p, pi, s, k)) return true;
        return false;
      }
      for (size_t k = si;; ++k) {
        if (wildmatch(p, pi, s, k)) return true;
        if (k == s.size() || s[k] == '/') return false;
      }
    }
    if (si == s.size()) return false;
    if (c == '?') {
      if (s[si] == '/') return false;
      ++pi, ++si;
      continue;
    }
    if (c == '[') {
      size_t next;
      bool ok = match_class(p, pi, s[si], next);
      if (next != std::string_view::npos) {
        if (!ok) return false;
        pi = next, ++si;
        continue;
      }
      // Unterminated class: '[' is a literal.
    }
    if (c == '\\' && pi + 1 < p.size()) c = p[++pi];
    if (c != s[si]) return false;
    ++pi, ++si;
  }
  return si == s.size();
}

std::string_view trim_trailing_spaces(std::string_view line) {
  // Trailing spaces are ignored unless escaped with a backslash.
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    if (line.size() >= 2 && line[line.size() - 2] == '\\') break;
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  return wildmatch(pattern, 0, path, 0);
}

bool path_or_parent_matches(std::string_view pattern, std::string_view path) {
  IgnoreRules rules("", pattern);
  for (size_t end = path.size();;) {
    std::string_view prefix = path.substr(0, end);
    if (rules.match(prefix, end != path.size()) == IgnoreRules::Match::Ignore) return true;
    size_t slash = prefix.rfind('/');
    if (slash == std::string_view::npos) return false;
    end = slash;
  }
}

IgnoreRules::IgnoreRules(std::string base, std::string_view text) : base_(std::move(base)) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = trim_trailing_spaces(line);
    if (line.empty() || line[0] == '#') continue;
    Rule rule;
    if (line[0] == '!') {
      rule.negated = true;
      line.remove_prefix(1);
    } else if (line[0] == '\\' && line.size() > 1 && (line[1] == '!' || line[1] == '#')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      rule.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.empty()) continue;
    rule.anchored = line.find('/') != std::string_view::npos;
    if (line[0] == '/') line.remove_prefix(1);
    rule.pattern = std::string(line);
    rules_.push_back(std::move(rule));
  }
}

IgnoreRules::Match IgnoreRules::match(std::string_view path, bool is_dir) const {
  // Only paths under this file's directory can match its rules.
  std::string_view rel = path;
  if (!base_.empty()) {
    if (rel.size() <= base_.size() || !rel.starts_with(base_) || rel[base_.size()] != '/') return Match::None;
    rel.remove_prefix(base_.size() + 1);
  }
  std::string_view name = rel.substr(rel.rfind('/') == std::string_view::npos ? 0 : rel.rfind('/') + 1);
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (glob_match(it->pattern, it->anchored ? rel : name))
      return it->negated ? Match::Include : Match::Ignore;
  }
  return Match::None;
}

bool IgnoreStack::ignored(std::string_view path, bool is_dir) const {
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    auto m = it->match(path, is_dir);
    if (m != IgnoreRules::Match::None) return m == IgnoreRules::Match::Ignore;
  }
  return false;
}

}  // namespace tpulint
