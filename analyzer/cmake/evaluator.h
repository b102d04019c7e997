// The CMake frontend's evaluator: walks a file's commands in order, keeps the variables that
// `set`, `list(APPEND ...)`, `file(GLOB ...)` and `project` give, and expands `${VAR}` in each
// command's arguments as CMake would at that point. Nothing is guessed: a reference to a
// variable the file does not set (a cache option, a find_package result, a function's
// parameter) leaves the value unresolved, and checks skip it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmake/lexer.h"

namespace tpulint::cmake {

// One argument value after expansion (an unquoted argument can give several, or none).
struct Value {
  std::string text;
  bool resolved = true;  // false: it refers to a variable whose value is not known
  const Argument* argument = nullptr;  // where it was written
};

struct EvaluatedCommand {
  const Command* command = nullptr;
  std::vector<Value> values;
  // Inside a function() or macro() definition: its arguments are the parameters of calls
  // made elsewhere, so its values are not those of any real call.
  bool in_definition = false;
};

// The directories CMake's path variables stand for, absolute. Unset when not known soundly.
struct Directories {
  std::filesystem::path scan_root;
  std::filesystem::path list_dir;  // CMAKE_CURRENT_LIST_DIR: the file's own directory
  // CMAKE_CURRENT_SOURCE_DIR: the list dir for a CMakeLists.txt; unknown for a *.cmake file,
  // whose commands run in the directory of the CMakeLists.txt that includes it.
  std::optional<std::filesystem::path> source_dir;
  std::optional<std::filesystem::path> project_source_dir;  // until the file calls project()
  std::optional<std::filesystem::path> top_source_dir;      // CMAKE_SOURCE_DIR
};

class Variables {
 public:
  explicit Variables(const Directories& dirs);
  void set(const std::string& name, std::string value) { values_[name] = std::move(value); }
  void unset(const std::string& name) { values_.erase(name); }
  const std::string* find(const std::string& name) const;
  // `text` with every ${VAR} replaced; a reference to an unknown variable becomes kUnknown.
  std::string expand(std::string_view text) const;

  // Marks the place of an unknown value inside an expanded text or a variable's list.
  static constexpr char kUnknown = '\x1a';

 private:
  std::string expand(std::string_view text, int depth) const;
  std::map<std::string, std::string, std::less<>> values_;
};

// The commands of a lexed file with their arguments expanded, variables updated in order.
// Both branches of an if() are taken; a foreach() loop variable is unknown. `file(GLOB ...)`
// is expanded against the tree under `dirs.scan_root` (never following symlinks).
std::vector<EvaluatedCommand> evaluate(const std::vector<Command>& commands, const Directories& dirs);

// Splits an expanded unquoted argument into list elements (';' separates, '\;' does not;
// empty elements are dropped).
std::vector<std::string> split_list(std::string_view expanded);

}  // namespace tpulint::cmake
