// libFuzzer target: a CUDA file through the Clang frontend in header-free mode and every
// C/C++/CUDA check (CUDA is the superset: the host and device passes both run).
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tpulint::fuzz::analyze_bytes("input.cu", data, size);
  return 0;
}
