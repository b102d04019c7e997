// tpulint's entry point: everything happens in the library (app/cli.cpp).
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli.h"
#include "app/memory_setup.h"
#include "app/output.h"

int main(int argc, char** argv) {
  tpulint::app::set_up_memory();
  int code = tpulint::app::run_cli(argc, argv, std::cout, std::cerr);
  std::cout.flush();
  // A command that failed has said why; otherwise output that never arrived fails the run.
  if (code != tpulint::app::kExitError && !tpulint::app::close_stdout(std::cerr)) code = tpulint::app::kExitError;
  // Under AddressSanitizer, the normal exit, so that LeakSanitizer still looks for leaks.
  if (tpulint::kAddressSanitizer) return code;
  // Ends without running destructors: what is left is the last report and tables the kernel
  // reclaims at once, and freeing them piece by piece only costs time (see kept_report).
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}
