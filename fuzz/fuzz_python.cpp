// libFuzzer target: a Python file through the tree-sitter frontend and every Python check.
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tpulint::fuzz::analyze_bytes("input.py", data, size);
  return 0;
}
