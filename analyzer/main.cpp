// tpulint's entry point: everything happens in the library (app/cli.cpp).
#include <malloc.h>

#include <iostream>

#include "app/cli.h"

int main(int argc, char** argv) {
  // A worker frees each file's trees and takes the same memory again for the next file. By
  // default glibc hands the top of the heap back to the kernel between them, and every page is
  // then faulted in again: on this virtual machine, page faults were 18% of a parse-only run.
  // Freed memory is kept up to 256 MB (the peak is what counts, and it is unchanged).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  return tpulint::app::run_cli(argc, argv, std::cout, std::cerr);
}
