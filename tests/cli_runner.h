// Runs the real build/tpulint binary for end-to-end tests.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "temp_dir.h"

namespace tpulint::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A file's bytes ("" if it cannot be read).
std::string slurp(const std::filesystem::path& path);

// The tpulint binary the tests run: the build's, or TPULINT_TEST_BINARY's (another build, say
// one from before a fix, to see a regression test fail there).
std::string tpulint_binary();

// Runs `tpulint <args>` through /bin/sh in `cwd` (args are passed to the shell as written,
// so quote paths). Captures stdout and stderr separately.
// `env` is prepended to the command, e.g. "TPULINT_FAULT_INJECTION=1".
CommandResult run_tpulint(const std::string& args, const std::string& cwd = TPULINT_SOURCE_DIR,
                          const std::string& env = "");
// The same with another program (the fault-injecting build of tpulint, say).
CommandResult run_program(const std::string& binary, const std::string& args, const std::string& cwd = TPULINT_SOURCE_DIR,
                          const std::string& env = "");

// `tpulint scan DIR --format json --exit-zero <options>`: requires the run to succeed and its
// report to be valid against docs/report.schema.json, and returns the report.
nlohmann::json scan_report(const TempDir& dir, const std::string& options = "--no-cache");

// Whether `programs` are on PATH; if not, the test says it is skipped (ctest reports it so, by
// its SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt) and should return.
bool have_programs(std::initializer_list<const char*> programs);

}  // namespace tpulint::testing
