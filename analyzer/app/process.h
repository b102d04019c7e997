// Running a helper program (git, tar) without a shell, capturing what it prints.
// tpulint runs no scanned code; these are tools it drives for --diff.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tpulint::app {

struct ProcessResult {
  int exit_code = -1;  // -1: it could not be started, or it was killed
  std::string out;
  std::string err;
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd = {});

}  // namespace tpulint::app
