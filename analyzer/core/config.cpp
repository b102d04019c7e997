#include "core/config.h"

#include <algorithm>
#include <fmt/format.h>
#include <toml++/toml.h>

#include "core/source_tree.h"
#include "core/types.h"

namespace fs = std::filesystem;

namespace tpulint {

namespace {

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw ConfigError(fmt::format("{}: {}", file.string(), what));
}

std::vector<std::string> string_list(const toml::node& node, const fs::path& file, std::string_view key) {
  const toml::array* arr = node.as_array();
  if (!arr) fail(file, fmt::format("'{}' must be a list of strings", key));
  std::vector<std::string> out;
  for (const toml::node& item : *arr) {
    auto s = item.value<std::string>();
    if (!s) fail(file, fmt::format("'{}' must be a list of strings", key));
    out.push_back(*s);
  }
  return out;
}

double number(const toml::node& node, const fs::path& file, std::string_view key, NumberRange range) {
  auto v = node.value<double>();  // integers convert too
  if (!v || !range.contains(*v)) fail(file, fmt::format("'{}' must be {}", key, range.describe()));
  return *v;
}

// A boolean only: toml++ would read an integer as one.
bool boolean(const toml::node& node, const fs::path& file, std::string_view key) {
  if (!node.is_boolean()) fail(file, fmt::format("'{}' must be true or false", key));
  return node.as_boolean()->get();
}

// The [tool.tpulint] table of a pyproject.toml, or the top level (or [tool.tpulint]) of a .tpulint.toml.
const toml::table* tpulint_table(const toml::table& doc, bool dedicated_file) {
  if (const toml::table* tool = doc["tool"].as_table())
    if (const toml::table* t = (*tool)["tpulint"].as_table()) return t;
  return dedicated_file ? &doc : nullptr;
}

// A configuration file is read whole; a larger one is refused.
constexpr uint64_t kMaxConfigSize = uint64_t(16) << 20;

// The text of `file`. A configuration found in a scanned tree is part of it: a symbolic link
// there is not followed. One the user names (`follow`) is resolved first.
std::string read_text(const fs::path& file, bool follow = false) {
  std::error_code ec;
  const fs::path from = follow ? fs::canonical(file, ec) : file;
  FileRead read = ec ? FileRead{} : SourceTree(from.parent_path()).read(from.filename().string(), kMaxConfigSize);
  if (read.status == FileRead::Status::Symlink)
    fail(file, "a symbolic link, which tpulint does not follow in a scanned tree (name its target with --config)");
  if (read.status != FileRead::Status::Read) fail(file, read.reason());
  return std::move(read.text);
}

toml::table parse(const fs::path& file, std::string_view text) {
  try {
    return toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    fail(file, fmt::format("invalid TOML at line {}, column {}: {}", e.source().begin.line, e.source().begin.column,
                           e.description()));
  }
}

// The config in `doc`, the parsed text of `file`.
Config config_of(const toml::table& doc, const fs::path& file) {
  bool dedicated = file.filename() == ".tpulint.toml";
  const toml::table* t = tpulint_table(doc, dedicated);
  Config c;
  c.file = file;
  c.dir = file.parent_path();
  if (!t) return c;
  for (const auto& [key_node, value] : *t) {
    std::string key(key_node.str());
    if (dedicated && key == "tool" && t == &doc) continue;  // a [tool.tpulint] table alongside is fine
    if (key == "select") {
      c.select = string_list(value, file, key);
    } else if (key == "ignore") {
      c.ignore = string_list(value, file, key);
    } else if (key == "exclude") {
      c.exclude = string_list(value, file, key);
    } else if (key == "per-path-ignores") {
      const toml::table* globs = value.as_table();
      if (!globs) fail(file, "'per-path-ignores' must be a table of glob = [check IDs]");
      for (const auto& [glob, ids] : *globs)
        c.per_path_ignores.emplace_back(std::string(glob.str()), string_list(ids, file, "per-path-ignores." + std::string(glob.str())));
    } else if (key == "path-weights") {
      const toml::table* globs = value.as_table();
      if (!globs) fail(file, "'path-weights' must be a table of glob = weight");
      for (const auto& [glob, w] : *globs)
        c.path_weights.emplace_back(std::string(glob.str()), number(w, file, "path-weights." + std::string(glob.str()), kPathWeightRange));
    } else if (key == "auxiliary-weight") {
      c.auxiliary_weight = number(value, file, key, kAuxiliaryWeightRange);
    } else if (key == "cxx-time-budget") {
      c.cxx_time_budget = number(value, file, key, kCxxTimeBudgetRange);
    } else if (key == "fail-under") {
      c.fail_under = number(value, file, key, kFailUnderRange);
    } else if (key == "fail-on") {
      auto v = value.value<std::string>();
      if (!v || !is_fail_on_value(*v))
        fail(file, "'fail-on' must be one of error, warning, info (severity) or high, medium, low (effort)");
      c.fail_on = *v;
    } else if (key == "fail-on-unanalyzed") {
      c.fail_on_unanalyzed = boolean(value, file, key);
    } else if (key == "max-file-size") {
      // Integers only: toml++ converts a float by a cast that is undefined out of int64 range.
      std::optional<int64_t> v = value.is_integer() ? value.value<int64_t>() : std::nullopt;
      if (!v || *v <= 0) fail(file, "'max-file-size' must be a positive number of bytes");
      c.max_file_size = uint64_t(*v);
    } else if (key == "compile-commands") {
      auto v = value.value<std::string>();
      if (!v) fail(file, "'compile-commands' must be a path (a directory holding compile_commands.json)");
      c.compile_commands = (c.dir / *v).lexically_normal();
    } else if (key == "target") {
      auto v = value.value<std::string>();
      if (!v || !framework_for_target(*v)) fail(file, "'target' must be one of torch-xla, jax, tf");
      c.target = *v;
    } else if (key == "respect-gitignore") {
      c.respect_gitignore = boolean(value, file, key);
    } else if (key == "force-exclude") {
      c.force_exclude = boolean(value, file, key);
    } else if (key == "baseline") {
      auto v = value.value<std::string>();
      std::optional<std::string> rel = v ? normalized_relative_path(*v) : std::nullopt;
      if (!v || !rel || rel->empty())
        fail(file, "'baseline' must be the path of a file in the project, relative to the configuration's directory");
      c.baseline = *rel;
    } else {
      std::string known;
      for (const std::string& k : config_keys()) known += (known.empty() ? "" : ", ") + k;
      fail(file, fmt::format("unknown key '{}' in the tpulint configuration (known keys: {})", key, known));
    }
  }
  return c;
}

}  // namespace

std::string NumberRange::describe() const {
  return fmt::format("{}a number from {:g} to {:g}", or_zero ? "0 or " : "", min, max);
}

const std::vector<std::string>& config_keys() {
  static const std::vector<std::string> keys = {
      "auxiliary-weight", "baseline",   "compile-commands", "cxx-time-budget",  "exclude",           "fail-on",
      "fail-on-unanalyzed", "fail-under", "force-exclude",    "ignore",           "max-file-size",     "path-weights",
      "per-path-ignores", "respect-gitignore", "select", "target"};
  return keys;
}

bool is_fail_on_value(std::string_view v) {
  for (std::string_view ok : {"error", "warning", "info", "high", "medium", "low"})
    if (v == ok) return true;
  return false;
}

Config read_config(const fs::path& file) { return read_config(file, read_text(file)); }

Config read_config(const fs::path& file, std::string_view text) { return config_of(parse(file, text), file); }

Config read_named_config(const fs::path& file) { return read_config(file, read_text(file, /*follow=*/true)); }

std::optional<Config> find_config(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (;;) {
    const SourceTree here(dir);
    auto present = [&](const char* name) { return here.kind(name) != EntryKind::Missing; };
    fs::path dedicated = dir / ".tpulint.toml";
    if (present(".tpulint.toml")) return read_config(dedicated);
    fs::path pyproject = dir / "pyproject.toml";
    if (present("pyproject.toml")) {
      toml::table doc = parse(pyproject, read_text(pyproject));
      if (tpulint_table(doc, false)) return config_of(doc, pyproject);
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

}  // namespace tpulint
