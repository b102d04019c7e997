// Ignore rules with .gitignore semantics, used for .gitignore files, .git/info/exclude and
// --exclude. Kept here rather than in a library because Debian has no C++ gitignore matcher.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint {

// A glob pattern, compiled once to be matched against many paths, as git's wildmatch with the
// WM_PATHNAME flag: '*' and '?' stop at '/', '**/' matches zero or more directories, '**'
// anywhere else matches anything, '[a-z]', '[!a-z]' and '[^a-z]' are classes (never matching
// '/'), '\' makes the next character literal, and a '[' without its ']' is a literal.
//
// Ignore files come from the scanned repository, so a pattern may be hostile. Matching runs
// the pattern's automaton over the path one character at a time, keeping the set of pattern
// positions reached, rather than backtracking, whose time is exponential in the number of
// stars and whose stack grows with the pattern: it takes at most (size() + 1) * path length
// steps and no stack. Runs of stars that mean what one does are one position, and a pattern
// needing more characters than the path has fails at once, so size() counts for at most about
// three times the path's length however long the pattern is.
class Glob {
 public:
  explicit Glob(std::string_view pattern);

  bool matches(std::string_view path) const;
  // The same, adding to `steps` the pattern positions it examined: at most
  // (size() + 1) * path.size(). For tests that bound the work a pattern costs.
  bool matches(std::string_view path, size_t& steps) const;
  // The lengths n, in increasing order, at which the pattern matches path.substr(0, n), where n
  // is the path's length or the position of one of its '/': which of the path and its parent
  // directories it matches, in one pass over the path (steps as for matches()).
  std::vector<size_t> matched_path_and_parents(std::string_view path, size_t& steps) const;

  // The number of positions in the pattern's automaton.
  size_t size() const { return tokens_.size(); }

 private:
  enum class Kind : uint8_t {
    Literal,  // one given character
    AnyChar,  // '?': one character but '/'
    Class,    // one character of classes_[class_index]
    Star,     // '*': any run of characters but '/'
    AnyPath,  // '**' not followed by '/': any run of characters
    AnyDirs,  // '**/': nothing, or any run of characters ending in '/'
  };
  struct Token {
    Kind kind;
    char literal = 0;
    uint32_t class_index = 0;
    bool is_star() const { return kind >= Kind::Star; }
  };
  void add_star(Kind kind);
  // Compiles the class opening at pattern[open] == '['; returns the position after its ']', or
  // 0 when it has none.
  size_t add_class(std::string_view pattern, size_t open);
  // Whether the one-character token `t` matches `c`.
  bool accepts(const Token& t, unsigned char c) const;
  // Whether tokens_[begin, end) match all of `path`; with `parents`, also appends to it each
  // position of a '/' in `path` before which they match.
  bool run(size_t begin, size_t end, std::string_view path, size_t& steps, std::vector<size_t>* parents) const;

  std::vector<Token> tokens_;
  std::vector<std::bitset<256>> classes_;
  size_t min_length_ = 0;  // the characters any match consumes: one per non-star token
  // The one-character tokens before the first star and after the last: they match the path's
  // first and last characters, checked before anything else (most rules fail there).
  size_t head_ = 0, tail_ = 0;
};

// Whether the glob `pattern` matches all of `path` (see Glob).
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
  // Whether the rules ignore `path` or one of its parent directories (a directory walk never
  // enters an ignored one), in time linear in the path's length per rule (match() on each
  // parent would take time quadratic in it).
  bool ignores_path_or_parent(std::string_view path) const;
  bool empty() const { return rules_.empty(); }

 private:
  // `path` relative to the rules' directory; nullopt when it is not below it.
  std::optional<std::string_view> relative(std::string_view path) const;

  struct Rule {
    Glob glob;
    bool negated;
    bool dir_only;
    bool anchored;  // contains a '/' other than a trailing one: matched from `base`
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
