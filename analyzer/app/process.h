// Running a helper program (git) without a shell, capturing what it prints. tpulint runs no
// scanned code; git is a tool it drives for --diff, found on PATH before anything runs in the
// scanned tree (find_executable), so a repository's own `./git` is never what runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tpulint::app {

struct ProcessResult {
  int exit_code = -1;  // -1: it could not be started, or it was killed
  std::string out;
  std::string err;
};

// The program `name` in the absolute directories of $PATH (an empty or relative element, which
// would name the current directory, is skipped); nullopt when there is none.
std::optional<std::filesystem::path> find_executable(const std::string& name);

// Runs `argv` (argv[0] an absolute path) in `cwd`, with `input` on its standard input.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {},
                          const std::string& input = {});

}  // namespace tpulint::app
