#include "core/ignore_rules.h"

#include <algorithm>

namespace tpulint {

namespace {

std::string_view trim_trailing_spaces(std::string_view line) {
  // Trailing spaces are ignored unless escaped with a backslash.
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) {
    if (line.size() >= 2 && line[line.size() - 2] == '\\') break;
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

Glob::Glob(std::string_view pattern) {
  // Once a class has no closing ']', no later one has: the unclosed class's scan went over
  // each later one's members and would have stopped at the ']' closing it. Every later '[' is
  // then a literal without a scan to the end of the pattern for each.
  bool classes_close = true;
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '*') {
      const size_t run_end = std::min(pattern.find_first_not_of('*', i), pattern.size());
      if (run_end - i == 1) {
        add_star(Kind::Star);
        i = run_end;
      } else if (run_end < pattern.size() && pattern[run_end] == '/') {
        add_star(Kind::AnyDirs);
        i = run_end + 1;
      } else {
        add_star(Kind::AnyPath);
        i = run_end;
      }
      continue;
    }
    ++min_length_;
    if (c == '?') {
      tokens_.push_back({Kind::AnyChar});
      ++i;
      continue;
    }
    if (c == '[' && classes_close) {
      if (const size_t end = add_class(pattern, i)) {
        i = end;
        continue;
      }
      classes_close = false;
    }
    if (c == '\\' && i + 1 < pattern.size()) ++i;
    tokens_.push_back({Kind::Literal, pattern[i]});
    ++i;
  }
  auto star = [](const Token& t) { return t.is_star(); };
  head_ = size_t(std::find_if(tokens_.begin(), tokens_.end(), star) - tokens_.begin());
  if (head_ < tokens_.size()) tail_ = size_t(std::find_if(tokens_.rbegin(), tokens_.rend(), star) - tokens_.rbegin());
}

void Glob::add_star(Kind kind) {
  // "**/" then "**/" means what one does, and "**/" then "**" what "**" does: kept as one, so
  // that a line of "**/**/**/..." is one position, not one per repetition.
  if (!tokens_.empty() && tokens_.back().kind == Kind::AnyDirs && kind != Kind::Star) {
    tokens_.back().kind = kind;
    return;
  }
  tokens_.push_back({kind});
}

size_t Glob::add_class(std::string_view p, size_t open) {
  std::bitset<256> members;
  size_t i = open + 1;
  const bool negated = i < p.size() && (p[i] == '!' || p[i] == '^');
  if (negated) ++i;
  for (const size_t first = i; i < p.size(); ++i) {
    if (p[i] == ']' && i != first) {
      if (negated) members.flip();
      members.reset('/');
      tokens_.push_back({Kind::Class, 0, uint32_t(classes_.size())});
      classes_.push_back(members);
      return i + 1;
    }
    // A member, or a range of `char` values: "a-z", "\\]-\\^"; a '-' before the ']' is a member.
    char low = p[i];
    if (low == '\\' && i + 1 < p.size()) low = p[++i];
    char high = low;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      i += 2;
      high = p[i];
      if (high == '\\' && i + 1 < p.size()) high = p[++i];
    }
    for (int member = low; member <= high; ++member) members.set(static_cast<unsigned char>(member));
  }
  return 0;
}

bool Glob::matches(std::string_view path) const {
  size_t steps = 0;
  return matches(path, steps);
}

bool Glob::matches(std::string_view path, size_t& steps) const {
  if (path.size() < min_length_) return false;
  for (size_t k = 0; k < head_; ++k) {
    ++steps;
    if (!accepts(tokens_[k], path[k])) return false;
  }
  if (head_ == tokens_.size()) return path.size() == head_;
  for (size_t k = 1; k <= tail_; ++k) {
    ++steps;
    if (!accepts(tokens_[tokens_.size() - k], path[path.size() - k])) return false;
  }
  return run(head_, tokens_.size() - tail_, path.substr(head_, path.size() - head_ - tail_), steps, nullptr);
}

std::vector<size_t> Glob::matched_path_and_parents(std::string_view path, size_t& steps) const {
  std::vector<size_t> lengths;
  if (path.size() < min_length_) return lengths;
  if (run(0, tokens_.size(), path, steps, &lengths)) lengths.push_back(path.size());
  return lengths;
}

bool Glob::accepts(const Token& t, unsigned char c) const {
  switch (t.kind) {
    case Kind::Literal: return c == static_cast<unsigned char>(t.literal);
    case Kind::AnyChar: return c != '/';
    case Kind::Class: return classes_[t.class_index][c];
    default: return false;
  }
}

bool Glob::run(size_t begin, size_t end, std::string_view path, size_t& steps, std::vector<size_t>* parents) const {
  // The positions in [begin, end] reached after each character, each listed once:
  // `listed_at[p - begin]` is the number of characters consumed when p was last listed,
  // `entered_at[p - begin]` when it was last entered by matching what comes before it.
  std::vector<uint32_t> current, next;
  std::vector<size_t> listed_at(end - begin + 1, std::string_view::npos), entered_at(listed_at);
  auto list = [&](size_t position, size_t consumed) {
    if (listed_at[position - begin] == consumed) return;
    listed_at[position - begin] = consumed;
    next.push_back(uint32_t(position));
  };
  auto enter = [&](size_t position, size_t consumed) {
    // A star may match nothing: entering it enters the position after it too.
    for (;; ++position) {
      if (entered_at[position - begin] == consumed) return;
      entered_at[position - begin] = consumed;
      list(position, consumed);
      if (position == end || !tokens_[position].is_star()) return;
    }
  };
  enter(begin, 0);
  for (size_t i = 0; i < path.size(); ++i) {
    current.swap(next);
    next.clear();
    if (current.empty()) return false;
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (parents && c == '/' && listed_at[end - begin] == i) parents->push_back(i);
    for (const uint32_t position : current) {
      ++steps;
      if (position == end) continue;
      const Token& t = tokens_[position];
      switch (t.kind) {
        case Kind::Star: if (c != '/') enter(position, i + 1); break;
        case Kind::AnyPath: enter(position, i + 1); break;
        case Kind::AnyDirs:
          // Inside "**/", only a '/' ends it: staying is not entering it again.
          list(position, i + 1);
          if (c == '/') enter(position + 1, i + 1);
          break;
        default: if (accepts(t, c)) enter(position + 1, i + 1);
      }
    }
  }
  return listed_at[end - begin] == path.size();
}

bool glob_match(std::string_view pattern, std::string_view path) { return Glob(pattern).matches(path); }

bool path_or_parent_matches(std::string_view pattern, std::string_view path) {
  return IgnoreRules("", pattern).ignores_path_or_parent(path);
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
    bool negated = false, dir_only = false;
    if (line[0] == '!') {
      negated = true;
      line.remove_prefix(1);
    } else if (line[0] == '\\' && line.size() > 1 && (line[1] == '!' || line[1] == '#')) {
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      dir_only = true;
      line.remove_suffix(1);
    }
    if (line.empty()) continue;
    const bool anchored = line.find('/') != std::string_view::npos;
    if (line[0] == '/') line.remove_prefix(1);
    rules_.push_back({Glob(line), negated, dir_only, anchored});
  }
}

std::optional<std::string_view> IgnoreRules::relative(std::string_view path) const {
  if (base_.empty()) return path;
  if (path.size() <= base_.size() || !path.starts_with(base_) || path[base_.size()] != '/') return std::nullopt;
  return path.substr(base_.size() + 1);
}

IgnoreRules::Match IgnoreRules::match(std::string_view path, bool is_dir) const {
  // Only paths under this file's directory can match its rules.
  std::optional<std::string_view> under = relative(path);
  if (!under) return Match::None;
  const std::string_view rel = *under;
  std::string_view name = rel.substr(rel.rfind('/') == std::string_view::npos ? 0 : rel.rfind('/') + 1);
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (it->glob.matches(it->anchored ? rel : name))
      return it->negated ? Match::Include : Match::Ignore;
  }
  return Match::None;
}

bool IgnoreRules::ignores_path_or_parent(std::string_view path) const {
  std::optional<std::string_view> under = relative(path);
  if (!under) return false;
  const std::string_view rel = *under;
  // What decides for each of rel.substr(0, n): the last rule that matches it, as in match().
  std::vector<Match> decided(rel.size() + 1, Match::None);
  for (const Rule& rule : rules_) {
    auto decide = [&](size_t n) {
      if (!rule.dir_only || n != rel.size()) decided[n] = rule.negated ? Match::Include : Match::Ignore;
    };
    size_t steps = 0;
    if (rule.anchored) {
      for (size_t n : rule.glob.matched_path_and_parents(rel, steps)) decide(n);
      continue;
    }
    // An unanchored rule matches the last name of the path or parent.
    for (size_t begin = 0; begin <= rel.size();) {
      const size_t end = std::min(rel.find('/', begin), rel.size());
      if (rule.glob.matches(rel.substr(begin, end - begin))) decide(end);
      begin = end + 1;
    }
  }
  return std::find(decided.begin(), decided.end(), Match::Ignore) != decided.end();
}

bool IgnoreStack::ignored(std::string_view path, bool is_dir) const {
  for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
    auto m = it->match(path, is_dir);
    if (m != IgnoreRules::Match::None) return m == IgnoreRules::Match::Ignore;
  }
  return false;
}

}  // namespace tpulint
