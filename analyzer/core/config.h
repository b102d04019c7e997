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
  std::optional<bool> fail_on_unanalyzed;
  std::optional<uint64_t> max_file_size;
  std::optional<std::filesystem::path> compile_commands;  // absolute
  std::optional<bool> respect_gitignore;
  std::optional<bool> force_exclude;  // the excludes apply to paths named explicitly too
  // The baseline file scans hide the findings of, relative to `dir` and normalized: never
  // outside it, since a configuration comes with the scanned tree.
  std::optional<std::string> baseline;
  std::optional<std::string> target;  // "torch-xla", "jax" or "tf"
  std::optional<double> cxx_time_budget;  // seconds of CPU; 0: none
};

// What a numeric setting accepts, on the command line and in the configuration alike: a number
// from `min` to `max`, or also 0 when `or_zero` (a documented "none"). NaN is in no range, and
// infinities are out of every one; a bad value is an error, never replaced by a default.
struct NumberRange {
  double min = 0, max = 0;
  bool or_zero = false;
  bool contains(double v) const { return (or_zero && v == 0) || (v >= min && v <= max); }
  std::string describe() const;  // "a number from 0 to 100", "0 or a number from 0.001 to 604800"
};

inline constexpr NumberRange kFailUnderRange{0, 100};
inline constexpr NumberRange kAuxiliaryWeightRange{0, 1};
inline constexpr NumberRange kPathWeightRange{0, 1000};
// `cxx-time-budget`, `--cxx-time-budget`: seconds, 0 for none, else a millisecond to a week.
inline constexpr NumberRange kCxxTimeBudgetRange{0.001, 7 * 24 * 3600, true};

// The keys a config may hold, for error messages and docs.
const std::vector<std::string>& config_keys();

// Reads one config file. Throws ConfigError (with the file, and the key or the TOML error).
// A config file found in a scanned tree: a symbolic link there is not followed.
Config read_config(const std::filesystem::path& file);
// The same with `text` as the file's contents: the file is not read, its name says whether it
// is a .tpulint.toml, and its directory is the config's.
Config read_config(const std::filesystem::path& file, std::string_view text);
// A config file the user named (--config): a symbolic link is followed.
Config read_named_config(const std::filesystem::path& file);

// The config that applies to `start` (a file or directory): the nearest .tpulint.toml or
// pyproject.toml with [tool.tpulint] in it or above it. Nullopt if there is none.
std::optional<Config> find_config(const std::filesystem::path& start);

// The values `--fail-on` and `fail-on` accept: severities and effort classes.
bool is_fail_on_value(std::string_view value);

}  // namespace tpulint
