// Project configuration: `[tool.tpulint]` in pyproject.toml, or a .tpulint.toml (whose keys
// sit at the top level, or under [tool.tpulint] too). The nearest one at or above the scanned
// path applies; a pyproject.toml without [tool.tpulint] is passed over. An unknown key or a
// bad value is an error that names the key and the file: never silently ignored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpulint {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Config {
  std::filesystem::path file;  // where it was read from; empty when there is none
  std::filesystem::path dir;   // the directory its globs and paths are relative to

  std::optional<std::vector<std::string>> select;
  std::optional<std::vector<std::string>> ignore;
  std::vector<std::string> exclude;
  std::vector<std::pair<std::string, std::vector<std::string>>> per_path_ignores;  // glob -> IDs
  std::vector<std::pair<std::string, double>> path_weights;                        // glob -> weight
  std::optional<double> auxiliary_weight;
  std::optional<double> fail_under;
  std::optional<std::string> fail_on;
  std::optional<uint64_t> max_file_size;
  std::optional<std::filesystem::path> compile_commands;  // absolute
  std::optional<bool> respect_gitignore;
  std::optional<std::string> target;  // "torch-xla", "jax" or "tf"
};

// The keys a config may hold, for error messages and docs.
const std::vector<std::string>& config_keys();

// Reads one config file. Throws ConfigError (with the file, and the key or the TOML error).
Config read_config(const std::filesystem::path& file);
// The same with `text` as the file's contents: the file is not read, its name says whether it
// is a .tpulint.toml, and its directory is the config's.
Config read_config(const std::filesystem::path& file, std::string_view text);

// The config that applies to `start` (a file or directory): the nearest .tpulint.toml or
// pyproject.toml with [tool.tpulint] in it or above it. Nullopt if there is none.
std::optional<Config> find_config(const std::filesystem::path& start);

// The values `--fail-on` and `fail-on` accept: severities and effort classes.
bool is_fail_on_value(std::string_view value);

}  // namespace tpulint
