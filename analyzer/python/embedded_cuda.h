// CUDA kernel sources written in a Python file's string literals: CuPy `RawKernel`/`RawModule`
// code, PyCUDA `SourceModule`, `torch.utils.cpp_extension.load_inline(cuda_sources=...)`. Their
// kernels are kernels to port like those of a .cu file, so the C/C++/CUDA frontend reads them.
#pragma once

#include <string>
#include <string_view>

namespace tpulint::python {

// The file's text with everything but the contents of its string literals that hold `__global__`
// blanked out, byte for byte (newlines kept, escape sequences of non-raw strings blanked), so a
// kernel sits at its own line and column; adjacent literals joined by concatenation count with
// the one that holds `__global__`. Empty when no literal holds one.
std::string embedded_cuda_source(std::string_view text);

}  // namespace tpulint::python
