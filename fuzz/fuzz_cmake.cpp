// libFuzzer target: a CMakeLists.txt through the CMake frontend (lexer, evaluator) and every CMake check.
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tpulint::fuzz::analyze_bytes("CMakeLists.txt", data, size);
  return 0;
}
