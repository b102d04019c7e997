// A repository built to attack a scan (issue 34): every way a scanned tree has been seen to make
// tpulint write, run or read outside it, or spend unbounded time or memory. The strace test
// scans it and checks every file opened, program run and file written.
#pragma once

#include <filesystem>
#include <string>

#include "temp_dir.h"

namespace tpulint::testing {

struct HostileTree {
  std::filesystem::path repo;     // the tree to scan: a git repository with changes since HEAD
  std::filesystem::path outside;  // files beside it that an attack tries to read or write
  std::string marker;             // path prefix of the files a command of the tree's would leave
};

// Builds the tree under `dir`.
HostileTree write_hostile_tree(const TempDir& dir);

}  // namespace tpulint::testing
