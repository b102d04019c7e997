// Runs the real build/tpulint binary for end-to-end tests.
#pragma once

#include <string>

namespace tpulint::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `tpulint <args>` through /bin/sh in `cwd` (args are passed to the shell as written,
// so quote paths). Captures stdout and stderr separately.
CommandResult run_tpulint(const std::string& args, const std::string& cwd = TPULINT_SOURCE_DIR);

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  // Writes `content` to `relative` (creating parent directories) and returns its full path.
  std::string write(const std::string& relative, const std::string& content) const;

 private:
  std::string path_;
};

}  // namespace tpulint::testing
