// The precompiled standard library (ClangFrontendOptions::precompile_standard_library): a file
// parsed with it has the facts it has without it, and a parser builds it only for a set of
// standard headers it meets a second time (the first parse with a set goes without).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cxx/clang_frontend.h"
#include "temp_dir.h"

using namespace tpulint;
using namespace tpulint::cxx;
using tpulint::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// Every fact of a parse, in one comparable text.
std::string facts_text(const NativeFile& f) {
  std::ostringstream o;
  for (const FunctionFact& fn : f.functions)
    o << "fn " << fn.qualified_name << ' ' << fn.span.begin << '-' << fn.span.end << ' ' << fn.is_kernel << fn.is_device
      << fn.is_host << fn.is_template << fn.lexical << ' ' << fn.lines << '\n';
  for (const LaunchFact& l : f.launches) o << "launch " << l.kernel << ' ' << l.span.begin << '\n';
  for (const AsmFact& a : f.asm_statements) o << "asm " << a.span.begin << ' ' << a.function << a.in_device_code << '\n';
  for (const CallFact& c : f.calls) o << "call " << c.callee << ' ' << c.span.begin << ' ' << c.function << ' ' << c.first_argument << '\n';
  for (const IncludeFact& i : f.includes) o << "include " << i.spelled << ' ' << i.found << ' ' << i.span.begin << '\n';
  for (const MacroUseFact& m : f.macro_uses) o << "macro " << m.name << ' ' << m.span.begin << '\n';
  for (const QualifiedNameFact& q : f.qualified_names) o << "name " << q.name << ' ' << q.span.begin << '\n';
  for (const std::string& t : f.instantiated_templates) o << "instantiates " << t << '\n';
  o << "fatal " << f.fatal_error << " over budget " << f.over_budget << '\n';
  return o.str();
}

SourceFile source(const fs::path& root, const std::string& rel, std::string text) {
  Language language = rel.ends_with(".cu") || rel.ends_with(".cuh") ? Language::Cuda : Language::Cxx;
  return SourceFile(rel, root / rel, language, std::move(text));
}

// Files like real extension code: standard headers beside missing torch and CUDA headers, a
// device pass (__CUDA_ARCH__), a macro set before a standard header, and standard names used.
const std::pair<std::string, std::string> kFiles[] = {
    {"ops/scale.cu", R"(#include <torch/extension.h>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#include <cmath>
template <typename T>
__global__ void scale_kernel(T* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (i < n) x[i] = static_cast<T>(std::fmin(x[i] * s, 1e6f));
#else
  if (i < n) x[i] = x[i] * s;
#endif
}
std::vector<at::Tensor> scale(at::Tensor x, float s) {
  std::vector<int> sizes(4);
  std::sort(sizes.begin(), sizes.end());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<float><<<(x.numel() + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), s, x.numel());
  cudaMemcpyAsync(nullptr, nullptr, 0, cudaMemcpyDeviceToHost, stream);
  return {x};
}
)"},
    {"ops/util.cpp", R"(#define _USE_MATH_DEFINES
#include <cmath>
#include <map>
#include <string>
#include <memory>
#include "missing_local.h"
namespace ops {
std::map<std::string, std::unique_ptr<int>> registry;
double angle(double x) { return M_PI * x + std::sqrt(x); }
void record(const std::string& name) { registry.emplace(name, std::make_unique<int>(1)); undeclared_helper(name); }
}  // namespace ops
)"},
    {"ops/plain.c", "#include <stdio.h>\n#include <string.h>\nint f(const char* s) { printf(\"%s\", s); return (int)strlen(s); }\n"},
};

}  // namespace

TEST_CASE("the precompiled standard library changes no fact of a parse", "[cxx][precompiled]") {
  TempDir dir;
  std::vector<SourceFile> files;
  for (const auto& [rel, text] : kFiles) {
    dir.write(rel, text);
    files.push_back(source(dir.path(), rel, text));
  }
  const fs::path fixtures = fs::path(TPULINT_SOURCE_DIR) / "fixtures";
  for (const auto& e : fs::recursive_directory_iterator(fixtures)) {
    std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cu" && ext != ".cuh" && ext != ".cpp" && ext != ".h" && ext != ".c")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    files.push_back(source(fixtures, fs::relative(e.path(), fixtures).generic_string(), std::move(text)));
  }
  REQUIRE(files.size() > 20);

  ClangFrontendOptions without;
  without.precompile_standard_library = false;
  ClangFrontend plain(without);
  ClangFrontend precompiling({});
  size_t precompiled = 0;
  for (const SourceFile& file : files) {
    CAPTURE(file.path());
    NativeFile reference = plain.parse(file);
    CHECK_FALSE(reference.precompiled_standard_headers);
    NativeFile first = precompiling.parse(file);
    NativeFile second = precompiling.parse(file);  // the same headers again: now precompiled
    CHECK(facts_text(first) == facts_text(reference));
    CHECK(facts_text(second) == facts_text(reference));
    if (second.precompiled_standard_headers) ++precompiled;
  }
  // The two C++ and CUDA files above, and the fixtures that include standard headers.
  CHECK(precompiled >= 4);
}

TEST_CASE("a file with no standard header, or a C file, is never parsed with precompiled headers", "[cxx][precompiled]") {
  TempDir dir;
  ClangFrontend frontend({});
  for (const auto& [rel, text] : std::vector<std::pair<std::string, std::string>>{
           {"a.cpp", "#include \"local.h\"\nint f() { return 1; }\n"},
           {"b.c", "#include <stdio.h>\nint g(void) { return puts(\"x\"); }\n"}}) {
    dir.write(rel, text);
    SourceFile file = source(dir.path(), rel, text);
    for (int i = 0; i < 3; ++i) CHECK_FALSE(frontend.parse(file).precompiled_standard_headers);
  }
}

TEST_CASE("a parser precompiles a set of standard headers when it meets it a second time", "[cxx][precompiled]") {
  TempDir dir;
  ClangFrontend frontend({});
  const std::string text = "#include <vector>\n#include <string>\nstd::vector<std::string> names() { return {\"a\"}; }\n";
  dir.write("a.cpp", text);
  dir.write("b.cpp", text);
  CHECK_FALSE(frontend.parse(source(dir.path(), "a.cpp", text)).precompiled_standard_headers);
  CHECK(frontend.parse(source(dir.path(), "b.cpp", text)).precompiled_standard_headers);
  // Another set is another precompiled library.
  const std::string other = "#include <vector>\nstd::vector<int> sizes();\n";
  dir.write("c.cpp", other);
  CHECK_FALSE(frontend.parse(source(dir.path(), "c.cpp", other)).precompiled_standard_headers);
}
