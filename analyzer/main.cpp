// tpulint's entry point: everything happens in the library (app/cli.cpp).
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPULINT_HAS_ASAN 1
#endif
#endif

int main(int argc, char** argv) {
  // A worker frees each file's trees and takes the same memory again for the next file. By
  // default glibc hands the top of the heap back to the kernel between them, and every page is
  // then faulted in again: on this virtual machine, page faults were 18% of a parse-only run.
  // Freed memory is kept up to 256 MB (the peak is what counts, and it is unchanged).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
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
