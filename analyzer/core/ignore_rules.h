// Ignore rules with .gitignore semantics, used for .gitignore files, .git/info/exclude and
// --exclude. Kept here rather than in a library because Debian has no C++ gitignore matcher.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tpulint {

// Glob matching as git's wildmatch with the WM_PATHNAME flag: '*' and '?' stop at '/',
// '**' spans directories, '[a-z]' and '[!a-z]' are classes, '\' escapes.
bool glob_match(std::string_view pattern, std::string_view path);

// Whether a single gitignore-style pattern matches `path` or one of its parent directories
// (so `vendor` and `third_party/**` both cover `third_party/x/vendor/a.py`).
bool path_or_parent_matches(std::string_view pattern, std::string_view path);

// The rules of one ignore file (or one --exclude list), relative to the directory it lives in.
class IgnoreRules {
 public:
  // `base` is the directory the rules are relative to, as a '/'-separated path relative to the
  // walk's top directory ("" for the top itself).
  IgnoreRules(std::string base, std::string_view text);

  enum class Match { None, Ignore, Include };
  // Matches a '/'-separated path relative to the walk's top; the last matching rule decides.
  Match match(std::string_view path, bool is_dir) const;
  bool empty() const { return rules_.empty(); }

 private:
  struct Rule {
    std::string pattern;
    bool negated = false;
    bool dir_only = false;
    bool anchored = false;  // contains a '/' other than a trailing one: matched from `base`
  };
  std::string base_;
  std::vector<Rule> rules_;
};

// A stack of rule sets, outermost first; the innermost matching rule decides, as in git.
class IgnoreStack {
 public:
  void push(IgnoreRules rules) { levels_.push_back(std::move(rules)); }
  void pop() { levels_.pop_back(); }
  size_t size() const { return levels_.size(); }
  bool ignored(std::string_view path, bool is_dir) const;

 private:
  std::vector<IgnoreRules> levels_;
};

}  // namespace tpulint
