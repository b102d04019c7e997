// Header-free mode, part 2: the built-in torch/ATen/c10/pybind11 declarations, force-included
// when a file includes those headers and they are not in the scanned tree. Without them Clang
// drops what an extension is made of: `torch::Tensor` parameters make functions invalid,
// `auto out = torch::empty_like(x)` loses its initializer, and `AT_DISPATCH_*(..., [&] {...})`
// is an unknown call whose lambda (with the kernel launch inside) is never analyzed.
// A small, permissive surface: many members are variadic templates that accept anything.
#include "cxx/clang_frontend.h"

namespace tpulint::cxx {

const char kTorchShimPath[] = "/__tpulint__/torch_shim.h";

const char kTorchShim[] = R"shim(// tpulint built-in torch declarations (header-free mode)
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

typedef struct CUstream_st *cudaStream_t;
struct cudaDeviceProp;

#define TPULINT_HD __attribute__((host)) __attribute__((device))
#define TPULINT_ANY(name) template <class... A> auto name(A&&...) const -> Tensor;

namespace c10 {
enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat,
                                 ComplexDouble, Bool, BFloat16 };
enum class DeviceType : int8_t { CPU, CUDA, XLA, Meta };
constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
                     kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half,
                     kFloat = ScalarType::Float, kDouble = ScalarType::Double, kBool = ScalarType::Bool,
                     kBFloat16 = ScalarType::BFloat16;
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA;
struct Half { TPULINT_HD Half() = default; TPULINT_HD Half(float); TPULINT_HD operator float() const; };
struct BFloat16 { TPULINT_HD BFloat16() = default; TPULINT_HD BFloat16(float); TPULINT_HD operator float() const; };
struct Device { template <class... A> Device(A&&...); int index() const; bool is_cuda() const; DeviceType type() const; };
template <class T> struct ArrayRef {
  ArrayRef(); ArrayRef(std::initializer_list<T>); template <class U> ArrayRef(const U&);
  const T* begin() const; const T* end() const; size_t size() const; const T& operator[](size_t) const;
  const T* data() const;
};
using IntArrayRef = ArrayRef<int64_t>;
struct Scalar { template <class T> Scalar(T); template <class T> T to() const; };
template <class T> struct optional { optional(); template <class U> optional(U&&); bool has_value() const; T value() const; T& operator*(); explicit operator bool() const; };
struct nullopt_t {}; constexpr nullopt_t nullopt{};
namespace cuda {
struct CUDAStream { operator cudaStream_t() const; cudaStream_t stream() const; void synchronize() const; int device_index() const; };
CUDAStream getCurrentCUDAStream(int device = -1);
CUDAStream getDefaultCUDAStream(int device = -1);
CUDAStream getStreamFromPool(bool high_priority = false, int device = -1);
struct CUDAGuard { template <class... A> explicit CUDAGuard(A&&...); };
struct OptionalCUDAGuard { template <class... A> explicit OptionalCUDAGuard(A&&...); };
struct CUDAStreamGuard { template <class... A> explicit CUDAStreamGuard(A&&...); };
}  // namespace cuda
}  // namespace c10

namespace at {
using c10::ScalarType; using c10::Half; using c10::BFloat16; using c10::Device; using c10::DeviceType;
using c10::IntArrayRef; using c10::ArrayRef; using c10::Scalar; using c10::optional;
using c10::kByte; using c10::kChar; using c10::kShort; using c10::kInt; using c10::kLong; using c10::kHalf;
using c10::kFloat; using c10::kDouble; using c10::kBool; using c10::kBFloat16; using c10::kCPU; using c10::kCUDA;
struct TensorOptions {
  TensorOptions(); template <class T> TensorOptions(T);
  template <class... A> TensorOptions dtype(A&&...) const; template <class... A> TensorOptions device(A&&...) const;
  template <class... A> TensorOptions layout(A&&...) const; template <class... A> TensorOptions requires_grad(A&&...) const;
  template <class... A> TensorOptions device_index(A&&...) const;
};
template <class T> struct DefaultPtrTraits { typedef T* PtrType; };
template <class T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
struct TensorAccessor {
  TPULINT_HD TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t) const;
  TPULINT_HD index_t size(index_t) const; TPULINT_HD index_t stride(index_t) const; TPULINT_HD T* data() const;
};
template <class T, template <class U> class PtrTraits, class index_t>
struct TensorAccessor<T, 1, PtrTraits, index_t> {
  TPULINT_HD T& operator[](index_t) const;
  TPULINT_HD index_t size(index_t) const; TPULINT_HD index_t stride(index_t) const; TPULINT_HD T* data() const;
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
struct GenericPackedTensorAccessor : TensorAccessor<T, N, PtrTraits, index_t> {};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;

class Tensor {
 public:
  Tensor(); Tensor(const Tensor&); Tensor& operator=(const Tensor&); template <class T> Tensor& operator=(T);
  template <class T = void> T* data_ptr() const; template <class T> T* data() const;
  template <class T = void> T* mutable_data_ptr() const; template <class T = void> const T* const_data_ptr() const;
  template <class T> T item() const; Scalar item() const;
  template <class T, size_t N> TensorAccessor<T, N> accessor() const;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const;
  int64_t numel() const; int64_t size(int64_t) const; IntArrayRef sizes() const; int64_t stride(int64_t) const;
  IntArrayRef strides() const; int64_t dim() const; int64_t ndimension() const; size_t element_size() const;
  ScalarType scalar_type() const; TensorOptions options() const; Device device() const; int64_t get_device() const;
  bool is_cuda() const; bool is_contiguous() const; bool defined() const; bool requires_grad() const;
  bool is_floating_point() const; TensorOptions dtype() const;
  TPULINT_ANY(contiguous) TPULINT_ANY(view) TPULINT_ANY(reshape) TPULINT_ANY(to) TPULINT_ANY(cuda) TPULINT_ANY(cpu)
  TPULINT_ANY(clone) TPULINT_ANY(zero_) TPULINT_ANY(fill_) TPULINT_ANY(copy_) TPULINT_ANY(transpose)
  TPULINT_ANY(permute) TPULINT_ANY(select) TPULINT_ANY(narrow) TPULINT_ANY(index_select) TPULINT_ANY(sum)
  TPULINT_ANY(mean) TPULINT_ANY(max) TPULINT_ANY(min) TPULINT_ANY(unsqueeze) TPULINT_ANY(squeeze) TPULINT_ANY(expand)
  TPULINT_ANY(add_) TPULINT_ANY(mul_) TPULINT_ANY(div_) TPULINT_ANY(sub_) TPULINT_ANY(add) TPULINT_ANY(mul)
  TPULINT_ANY(div) TPULINT_ANY(sub) TPULINT_ANY(index) TPULINT_ANY(slice) TPULINT_ANY(resize_) TPULINT_ANY(type_as)
  TPULINT_ANY(new_zeros) TPULINT_ANY(new_empty) TPULINT_ANY(new_full) TPULINT_ANY(flatten) TPULINT_ANY(exp)
  TPULINT_ANY(log) TPULINT_ANY(sqrt) TPULINT_ANY(abs) TPULINT_ANY(neg) TPULINT_ANY(argmax) TPULINT_ANY(masked_fill)
  TPULINT_ANY(masked_fill_) TPULINT_ANY(scatter_) TPULINT_ANY(gather) TPULINT_ANY(matmul) TPULINT_ANY(mm)
  TPULINT_ANY(bmm) TPULINT_ANY(t) TPULINT_ANY(float_) TPULINT_ANY(half) TPULINT_ANY(toType) TPULINT_ANY(detach)
  TPULINT_ANY(set_requires_grad) TPULINT_ANY(repeat) TPULINT_ANY(chunk) TPULINT_ANY(split) TPULINT_ANY(sort)
  TPULINT_ANY(clamp) TPULINT_ANY(clamp_) TPULINT_ANY(pow) TPULINT_ANY(view_as) TPULINT_ANY(expand_as)
  Tensor operator[](int64_t) const; Tensor operator-() const;
};
Tensor operator+(const Tensor&, const Tensor&); Tensor operator-(const Tensor&, const Tensor&);
Tensor operator*(const Tensor&, const Tensor&); Tensor operator/(const Tensor&, const Tensor&);
Tensor operator+(const Tensor&, const Scalar&); Tensor operator-(const Tensor&, const Scalar&);
Tensor operator*(const Tensor&, const Scalar&); Tensor operator/(const Tensor&, const Scalar&);
Tensor operator*(const Scalar&, const Tensor&); Tensor operator>(const Tensor&, const Scalar&);
Tensor operator<(const Tensor&, const Scalar&); Tensor operator==(const Tensor&, const Scalar&);
using TensorList = ArrayRef<Tensor>;
#define TPULINT_FACTORY(name) Tensor name(IntArrayRef, TensorOptions = {}); template <class... A> Tensor name(A&&...);
TPULINT_FACTORY(empty) TPULINT_FACTORY(zeros) TPULINT_FACTORY(ones) TPULINT_FACTORY(rand) TPULINT_FACTORY(randn)
TPULINT_FACTORY(full) TPULINT_FACTORY(empty_strided) TPULINT_FACTORY(arange) TPULINT_FACTORY(from_blob)
TPULINT_FACTORY(tensor)
#undef TPULINT_FACTORY
#define TPULINT_FN(name) template <class... A> Tensor name(A&&...);
TPULINT_FN(empty_like) TPULINT_FN(zeros_like) TPULINT_FN(ones_like) TPULINT_FN(full_like) TPULINT_FN(cat)
TPULINT_FN(stack) TPULINT_FN(matmul) TPULINT_FN(mm) TPULINT_FN(bmm) TPULINT_FN(sum) TPULINT_FN(mean)
TPULINT_FN(softmax) TPULINT_FN(relu) TPULINT_FN(sigmoid) TPULINT_FN(where) TPULINT_FN(einsum) TPULINT_FN(linear)
#undef TPULINT_FN
struct DeviceGuard { template <class... A> explicit DeviceGuard(A&&...); };
template <class T> Device device_of(const T&);
namespace cuda {
using c10::cuda::CUDAStream; using c10::cuda::getCurrentCUDAStream; using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool; using c10::cuda::CUDAGuard; using c10::cuda::OptionalCUDAGuard;
using c10::cuda::CUDAStreamGuard;
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(int64_t device);
int64_t current_device();
}  // namespace cuda
namespace cuda::detail {}
}  // namespace at

namespace torch {
using namespace at;
using at::Tensor; using at::TensorOptions; using at::IntArrayRef; using at::ScalarType;
using at::RestrictPtrTraits; using at::DefaultPtrTraits;
using at::PackedTensorAccessor32; using at::PackedTensorAccessor64; using at::PackedTensorAccessor;
using at::GenericPackedTensorAccessor;
struct Library { template <class... A> Library& def(A&&...); template <class... A> Library& impl(A&&...); };
template <class... A> auto dispatch(A&&...) -> int;
}  // namespace torch

namespace pybind11 {
struct handle {}; struct object : handle { template <class T> T cast() const; };
struct module_ {
  template <class... A> module_& def(A&&...); module_ def_submodule(const char*, const char* = nullptr);
  template <class... A> module_& attr(A&&...);
};
using module = module_;
struct arg { explicit arg(const char*); template <class T> arg& operator=(T); arg& noconvert(bool = true); };
template <class... A> struct init {};
template <class T, class... Options> struct class_ {
  template <class... A> class_(A&&...); template <class... A> class_& def(A&&...);
  template <class... A> class_& def_readwrite(A&&...); template <class... A> class_& def_readonly(A&&...);
  template <class... A> class_& def_property(A&&...); template <class... A> class_& def_static(A&&...);
};
template <class T, class... A> T cast(A&&...);
struct return_value_policy { static const int reference, reference_internal, move, copy, take_ownership; };
struct gil_scoped_release {}; struct gil_scoped_acquire {};
}  // namespace pybind11
namespace py = pybind11;

// The macros extensions use, expanded so their bodies (and the launches in them) are analyzed.
#define TPULINT_DISPATCH(...) [&] { using scalar_t = float; using index_t = int64_t; return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND1(S1, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(S1, S2, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES_AND(S1, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND3(S1, S2, S3, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(S1, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(S1, S2, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(S1, S2, S3, TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_COMPLEX_TYPES(TYPE, NAME, ...) TPULINT_DISPATCH(__VA_ARGS__)
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...) [&] { __VA_ARGS__ }()
#define AT_DISPATCH_CASE(ENUM, ...) TPULINT_DISPATCH(__VA_ARGS__);
#define AT_DISPATCH_CASE_FLOATING_TYPES(...) TPULINT_DISPATCH(__VA_ARGS__);
#define AT_DISPATCH_V2(TYPE, NAME, BODY, ...) TPULINT_DISPATCH(BODY)
#define AT_WRAP(...) __VA_ARGS__
#define AT_EXPAND(X) X
#define TORCH_CHECK(COND, ...) ((void)(COND))
#define TORCH_CHECK_EQ(A, B) ((void)((A) == (B)))
#define TORCH_INTERNAL_ASSERT(COND, ...) ((void)(COND))
#define AT_ASSERTM(COND, ...) ((void)(COND))
#define AT_ASSERT(COND, ...) ((void)(COND))
#define AT_ERROR(...) ((void)0)
#define TORCH_WARN(...) ((void)0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define C10_CUDA_CHECK(EXPR) ((void)(EXPR))
#define AT_CUDA_CHECK(EXPR) ((void)(EXPR))
#define TORCH_FN(F) (F)
#define TORCH_SELECTIVE_NAME(N) (N)
#define TORCH_SELECTIVE_SCHEMA(S) (S)
#define C10_HOST_DEVICE TPULINT_HD
#define C10_DEVICE __attribute__((device))
#define C10_HOST __attribute__((host))
#define C10_LAUNCH_BOUNDS_1(N) __attribute__((launch_bounds(N)))
#define C10_LAUNCH_BOUNDS_2(N, M) __attribute__((launch_bounds(N, M)))
#define C10_WARP_SIZE 32
#define TORCH_LIBRARY(NS, M) static void TORCH_LIBRARY_init_##NS(torch::Library& M)
#define TORCH_LIBRARY_FRAGMENT(NS, M) static void TORCH_LIBRARY_FRAGMENT_init_##NS##_##M(torch::Library& M)
#define TORCH_LIBRARY_IMPL(NS, K, M) static void TORCH_LIBRARY_IMPL_init_##NS##_##K(torch::Library& M)
#define PYBIND11_MODULE(NAME, M) static void pybind11_init_##NAME(pybind11::module_& M)
#undef TPULINT_ANY
)shim";

}  // namespace tpulint::cxx
