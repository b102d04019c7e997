// The built-in CUDA shim: what the CUDA headers would declare, for header-free parsing.
// Kept apart from clang_frontend.cpp so editing it does not recompile the Clang code.
#include "cxx/clang_frontend.h"

namespace tpulint::cxx {

const char kCudaShimPath[] = "/__tpulint__/cuda_shim.h";

const char kCudaShim[] = R"shim(// tpulint built-in CUDA shim (header-free mode)
#pragma once
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __CUDACC__ 1
// The toolkit's version macros (nvcc's own, cuda.h, cuda_runtime_api.h, cublas_api.h) as newer than
// any release: code gated on `CUDA_VERSION >= 12080` (FP4, TMA, new cuBLAS APIs) is the code a
// current build compiles, and without headers the macros would be 0 and hide it.
#define __CUDACC_VER_MAJOR__ 99
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#define CUDA_VERSION 99000
#define CUDART_VERSION 99000
#define CUBLAS_VERSION 990000

typedef __SIZE_TYPE__ size_t;
// vector_types.h and vector_functions.h, which nvcc always includes: float4, int2, make_float4...
// Without them `kernel<float4><<<...>>>` written in a macro's body is dropped with the statement.
#define TPULINT_VECTOR_TYPES(name, base)                                                      \
  struct name##1 { base x; };                                                                \
  struct name##2 { base x, y; };                                                             \
  struct name##3 { base x, y, z; };                                                          \
  struct name##4 { base x, y, z, w; };                                                       \
  __host__ __device__ name##1 make_##name##1(base);                                          \
  __host__ __device__ name##2 make_##name##2(base, base);                                    \
  __host__ __device__ name##3 make_##name##3(base, base, base);                              \
  __host__ __device__ name##4 make_##name##4(base, base, base, base);
TPULINT_VECTOR_TYPES(char, signed char)
TPULINT_VECTOR_TYPES(uchar, unsigned char)
TPULINT_VECTOR_TYPES(short, short)
TPULINT_VECTOR_TYPES(ushort, unsigned short)
TPULINT_VECTOR_TYPES(int, int)
TPULINT_VECTOR_TYPES(uint, unsigned)
TPULINT_VECTOR_TYPES(long, long)
TPULINT_VECTOR_TYPES(ulong, unsigned long)
TPULINT_VECTOR_TYPES(longlong, long long)
TPULINT_VECTOR_TYPES(ulonglong, unsigned long long)
TPULINT_VECTOR_TYPES(float, float)
TPULINT_VECTOR_TYPES(double, double)
#undef TPULINT_VECTOR_TYPES
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef enum cudaError { cudaSuccess = 0 } cudaError_t;

// Sema needs one of these for <<<...>>>; which one depends on the CUDA version it assumes.
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, void *stream = 0);

extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

// cuda_wrappers/new (always on the include path) calls device malloc/free.
extern "C" __device__ void *malloc(size_t) __attribute__((nothrow)) __attribute__((malloc));
extern "C" __device__ void free(void *) __attribute__((nothrow));

__device__ void __syncthreads();
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
)shim";

}  // namespace tpulint::cxx
