#include "cmake/evaluator.h"

#include <algorithm>
#include <system_error>

#include "core/source_tree.h"

namespace fs = std::filesystem;

namespace tpulint::cmake {

namespace {

constexpr int kMaxExpansionDepth = 32;
std::string unknown() { return std::string(1, Variables::kUnknown); }

// file(GLOB|GLOB_RECURSE ...): the matching files, sorted, or nullopt when a pattern cannot be
// expanded soundly (unknown parts, wildcards in directory names, outside the scan root, too
// many entries).
std::optional<std::vector<std::string>> glob(const std::vector<Value>& args, size_t first, bool recurse,
                                             const Directories& dirs) {
  std::vector<std::string> out;
  std::optional<fs::path> relative_to;
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i].text;
    if (!args[i].resolved) return std::nullopt;
    if (a == "CONFIGURE_DEPENDS" || a == "FOLLOW_SYMLINKS") continue;
    if (a == "LIST_DIRECTORIES") {
      ++i;  // directories are never sources
      continue;
    }
    if (a == "RELATIVE") {
      if (i + 1 >= args.size() || !args[i + 1].resolved) return std::nullopt;
      relative_to = fs::path(args[++i].text).lexically_normal();
      continue;
    }
    fs::path pattern(a);
    if (pattern.is_relative()) {
      if (!dirs.source_dir) return std::nullopt;
      pattern = *dirs.source_dir / pattern;
    }
    pattern = pattern.lexically_normal();
    fs::path dir = pattern.parent_path();
    std::string name = pattern.filename().string();
    if (has_glob_wildcard(dir.string())) return std::nullopt;
    const SourceTree tree(dirs.scan_root);
    std::optional<std::string> dir_in_tree = tree.relative_path(dir);
    if (!dir_in_tree) return std::nullopt;
    auto found = tree.glob(*dir_in_tree, name, recurse, kMaxGlobEntries);
    if (!found) return std::nullopt;
    for (const std::string& rel : *found) {
      fs::path p = dirs.scan_root / rel;
      if (relative_to) p = p.lexically_relative(*relative_to);
      out.push_back(p.generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string join(const std::vector<Value>& values, size_t first, size_t last) {
  std::string out;
  for (size_t i = first; i < last; ++i) {
    if (i > first) out += ';';
    out += values[i].resolved ? values[i].text : unknown();
  }
  return out;
}

// The commands that write a variable in a way this evaluator does not follow: the variable
// they name becomes unknown. Value: the index of that name among the arguments, -1 = last.
int unfollowed_output(const std::string& command, const std::vector<Value>& v) {
  if (command == "option" || command == "get_filename_component" || command == "get_target_property" ||
      command == "find_file" || command == "find_path" || command == "find_library" || command == "find_program" ||
      command == "separate_arguments" || command == "math" || command == "cmake_path")
    return command == "math" || command == "cmake_path" ? 1 : 0;
  if (command == "string" && !v.empty()) {
    const std::string& op = v[0].text;
    if (op == "APPEND" || op == "PREPEND" || op == "TOUPPER" || op == "TOLOWER" || op == "STRIP" ||
        op == "CONCAT" || op == "JOIN" || op == "SUBSTRING" || op == "LENGTH" || op == "FIND")
      return op == "APPEND" || op == "PREPEND" || op == "CONCAT" ? 1 : -1;
    if (op == "REPLACE" || op == "REGEX") return op == "REGEX" ? 4 : 3;
  }
  return -2;
}

class Evaluator {
 public:
  explicit Evaluator(const Directories& dirs) : dirs_(dirs), vars_(dirs) {}

  std::vector<EvaluatedCommand> run(const std::vector<Command>& commands) {
    std::vector<EvaluatedCommand> out;
    out.reserve(commands.size());
    int definitions = 0;
    for (const Command& c : commands) {
      EvaluatedCommand e{&c, values(c), definitions > 0};
      if (c.name == "function" || c.name == "macro") ++definitions;
      else if ((c.name == "endfunction" || c.name == "endmacro") && definitions > 0) --definitions;
      else if (definitions == 0) apply(e);
      out.push_back(std::move(e));
    }
    return out;
  }

 private:
  std::vector<Value> values(const Command& c) const {
    std::vector<Value> out;
    for (const Argument& a : c.arguments) {
      if (a.kind == ArgumentKind::Bracket) {
        out.push_back({a.text, true, &a});
        continue;
      }
      std::string expanded = vars_.expand(a.text);
      if (a.kind == ArgumentKind::Quoted) {
        bool resolved = expanded.find(Variables::kUnknown) == std::string::npos;
        out.push_back({std::move(expanded), resolved, &a});
        continue;
      }
      for (std::string& element : split_list(expanded)) {
        bool resolved = element.find(Variables::kUnknown) == std::string::npos;
        out.push_back({std::move(element), resolved, &a});
      }
    }
    return out;
  }

  void apply(const EvaluatedCommand& e) {
    const std::string& name = e.command->name;
    const std::vector<Value>& v = e.values;
    if (int out = unfollowed_output(name, v); out != -2) {
      size_t i = out == -1 ? v.size() - 1 : size_t(out);
      if (!v.empty() && i < v.size() && v[i].resolved) vars_.set(v[i].text, unknown());
      return;
    }
    if (v.empty() || !v[0].resolved) return;
    const std::string& var = v[0].text;
    if (name == "set") return set(v);
    if (name == "unset") return vars_.unset(var);
    if (name == "list") return list(v);
    if (name == "file" && (var == "GLOB" || var == "GLOB_RECURSE") && v.size() > 1 && v[1].resolved) {
      auto files = glob(v, 2, var == "GLOB_RECURSE", dirs_);
      std::string value;
      for (const std::string& f : files.value_or(std::vector<std::string>{})) value += (value.empty() ? "" : ";") + f;
      vars_.set(v[1].text, files ? value : unknown());
      return;
    }
    if (name == "project" && dirs_.source_dir) {
      std::string dir = dirs_.source_dir->generic_string();
      vars_.set("PROJECT_SOURCE_DIR", dir);
      vars_.set("PROJECT_NAME", var);
      vars_.set(var + "_SOURCE_DIR", dir);
    }
  }

  // set(VAR values... [PARENT_SCOPE]) / set(VAR value CACHE TYPE doc [FORCE]).
  void set(const std::vector<Value>& v) {
    const std::string& var = v[0].text;
    if (var.starts_with("ENV{")) return;
    auto keyword = std::find_if(v.begin() + 1, v.end(), [](const Value& x) {
      return x.resolved && (x.text == "CACHE" || x.text == "PARENT_SCOPE");
    });
    if (keyword != v.end() && keyword->text == "PARENT_SCOPE") return;  // not this scope's variable
    // A cache entry's value is whatever the user configures; only its default is written here.
    if (keyword != v.end()) return vars_.set(var, unknown());
    if (v.size() == 1) return vars_.unset(var);
    vars_.set(var, join(v, 1, v.size()));
  }

  void list(const std::vector<Value>& v) {
    if (v.size() < 2 || !v[1].resolved) return;
    const std::string& op = v[0].text;
    const std::string& var = v[1].text;
    const std::string* current = vars_.find(var);
    if (op == "APPEND" || op == "PREPEND") {
      std::string added = join(v, 2, v.size());
      std::string base = current ? *current : unknown();  // appending to an unseen list: its head is unknown
      if (added.empty()) return;
      if (base.empty()) return vars_.set(var, added);
      vars_.set(var, op == "APPEND" ? base + ";" + added : added + ";" + base);
      return;
    }
    if (op == "REMOVE_ITEM" && current) {
      std::vector<std::string> items = split_list(*current);
      for (size_t i = 2; i < v.size(); ++i) {
        if (!v[i].resolved) return vars_.set(var, unknown());
        std::erase(items, v[i].text);
      }
      std::string value;
      for (const std::string& s : items) value += (value.empty() ? "" : ";") + s;
      return vars_.set(var, value);
    }
    // Reordering keeps the members; anything else changes them, or writes another variable.
    if (op == "SORT" || op == "REVERSE" || op == "REMOVE_DUPLICATES") return;
    if (op == "LENGTH" || op == "GET" || op == "JOIN" || op == "SUBLIST" || op == "FIND") {
      if (v.back().resolved) vars_.set(v.back().text, unknown());
      return;
    }
    vars_.set(var, unknown());
  }

  const Directories& dirs_;
  Variables vars_;
};

}  // namespace

Variables::Variables(const Directories& dirs) {
  values_["CMAKE_CURRENT_LIST_DIR"] = dirs.list_dir.generic_string();
  if (dirs.source_dir) values_["CMAKE_CURRENT_SOURCE_DIR"] = dirs.source_dir->generic_string();
  if (dirs.project_source_dir) values_["PROJECT_SOURCE_DIR"] = dirs.project_source_dir->generic_string();
  if (dirs.top_source_dir) values_["CMAKE_SOURCE_DIR"] = dirs.top_source_dir->generic_string();
}

const std::string* Variables::find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

std::string Variables::expand(std::string_view text) const { return expand(text, 0); }

std::string Variables::expand(std::string_view text, int depth) const {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    // ${VAR}, $ENV{VAR}, $CACHE{VAR}; a generator expression $<...> is only known at build time.
    bool env = text.substr(i).starts_with("$ENV{") || text.substr(i).starts_with("$CACHE{");
    if (text.substr(i).starts_with("$<")) return out + unknown();
    if (!text.substr(i).starts_with("${") && !env) {
      out += text[i++];
      continue;
    }
    size_t open = text.find('{', i);
    // The matching '}', past nested references.
    size_t j = open + 1;
    int nesting = 1;
    for (; j < text.size() && nesting > 0; ++j) {
      if (text[j] == '{') ++nesting;
      if (text[j] == '}') --nesting;
    }
    if (nesting > 0 || depth >= kMaxExpansionDepth) return out + unknown();
    std::string name = expand(text.substr(open + 1, j - 1 - (open + 1)), depth + 1);
    const std::string* value = env || name.find(kUnknown) != std::string::npos ? nullptr : find(name);
    out += value ? *value : unknown();
    i = j;
  }
  return out;
}

std::vector<std::string> split_list(std::string_view expanded) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < expanded.size(); ++i) {
    if (expanded[i] == '\\' && i + 1 < expanded.size() && expanded[i + 1] == ';') {
      cur += ';';
      ++i;
    } else if (expanded[i] == ';') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += expanded[i];
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<EvaluatedCommand> evaluate(const std::vector<Command>& commands, const Directories& dirs) {
  return Evaluator(dirs).run(commands);
}

}  // namespace tpulint::cmake
