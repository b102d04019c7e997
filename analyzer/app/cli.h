// The command line: `tpulint scan|checks|explain|docs`. Returns the process exit code:
// 0 clean or under the thresholds, 1 findings over a threshold, 2 usage or internal error, or
// output that could not be written (a file, or standard output).
#pragma once

#include <ostream>

namespace tpulint::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitThreshold = 1;
inline constexpr int kExitError = 2;

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tpulint::app
