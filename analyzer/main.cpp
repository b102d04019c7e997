// tpulint's entry point: everything happens in the library (app/cli.cpp).
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli.h"
#include "app/memory_setup.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPULINT_HAS_ASAN 1
#endif
#endif

int main(int argc, char** argv) {
  tpulint::app::set_up_memory();
  int code = tpulint::app::run_cli(argc, argv, std::cout, std::cerr);
#if defined(__SANITIZE_ADDRESS__) || TPULINT_HAS_ASAN
  return code;  // the normal exit, so that LeakSanitizer still looks for leaks
#else
  // Ends without running destructors: what is left is the last report and tables the kernel
  // reclaims at once, and freeing them piece by piece only costs time (see kept_report).
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
#endif
}
