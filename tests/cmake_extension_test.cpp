// TPU118 beyond its fixture's lines: the sources each target ties to its work item, the
// subject (the module's name, with its package when install() names one), and the CMake
// frontend's syntax note.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/engine.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace tpulint;

namespace {

const fs::path kFixture = fs::path(TPULINT_SOURCE_DIR) / "fixtures" / "checks";

// subject -> related paths of each TPU118 finding.
std::map<std::string, std::vector<std::string>> targets(const FileResult& r) {
  std::map<std::string, std::vector<std::string>> out;
  for (const Finding& f : r.findings)
    if (f.check_id == "TPU118") out[f.subject.str()] = f.related_paths;
  return out;
}

}  // namespace

TEST_CASE("TPU118 ties each target to the sources of the tree it lists", "[cmake][TPU118]") {
  app::Engine engine({});
  const std::string dir = "TPU118_cmake_native_extension/";
  FileResult r = engine.analyze_file(kFixture / dir / "CMakeLists.txt", dir + "CMakeLists.txt");
  auto t = targets(r);
  const std::string csrc = dir + "csrc/";
  // csrc/missing.cu does not exist: it is no related path.
  CHECK(t["_ext_cuda"] == std::vector<std::string>{csrc + "bindings.cpp", csrc + "nms_kernel.cu", csrc + "roi_align_kernel.cu"});
  CHECK(t["_cpu_ops"] == std::vector<std::string>{csrc + "cpu_ops.cpp"});
  CHECK(t["late_cuda"] == std::vector<std::string>{csrc + "bindings.cpp", csrc + "nms_kernel.cu"});
  CHECK(t["fused_ops_cuda"] == std::vector<std::string>{csrc + "roi_align_kernel.cu"});  // its OUTPUT_NAME
  CHECK(t["legacy_kernels"] == std::vector<std::string>{csrc + "cpu_ops.cpp"});
  CHECK(t["nb_ext"] == std::vector<std::string>{csrc + "nms_kernel.cu", csrc + "roi_align_kernel.cu"});  // file(GLOB)
  CHECK(t.size() == 6);
  for (const Finding& f : r.findings) {
    INFO(f.message);
    bool cpu = f.subject == "_cpu_ops";
    CHECK(f.effort == (cpu ? EffortClass::Medium : EffortClass::High));
    CHECK(f.message.starts_with(cpu ? "C++ extension '_cpu_ops'" : "CUDA "));
    CHECK(f.hint.find("PyTorch ops") != std::string::npos);  // the file builds against Torch
  }

  FileResult inc = engine.analyze_file(kFixture / dir / "cmake/extensions.cmake", dir + "cmake/extensions.cmake");
  CHECK(targets(inc)["_from_include"] == std::vector<std::string>{csrc + "nms_kernel.cu"});
}

TEST_CASE("TPU118 names a module by its package when install() puts it in one of the tree", "[cmake][TPU118]") {
  tpulint::testing::TempDir dir;
  dir.write("mypkg/__init__.py", "");
  dir.write("csrc/k.cu", "");
  dir.write("CMakeLists.txt",
            "project(p LANGUAGES CXX CUDA)\n"
            "pybind11_add_module(_C csrc/k.cu)\n"
            "install(TARGETS _C RUNTIME DESTINATION bin LIBRARY DESTINATION mypkg)\n"
            "pybind11_add_module(_elsewhere csrc/k.cu)\n"
            "install(TARGETS _elsewhere DESTINATION lib)\n");
  app::Engine engine({});
  FileResult r = engine.analyze_file(dir.path() / "CMakeLists.txt", "CMakeLists.txt");
  auto t = targets(r);
  CHECK(t.count("mypkg._C"));
  CHECK(t.count("_elsewhere"));  // lib/ is no package of the tree
  for (const Finding& f : r.findings) CHECK(f.hint.find("PyTorch ops") == std::string::npos);  // no Torch here
}

TEST_CASE("a CMake file the lexer cannot read to its end gets a TPU901 note, what comes before is checked",
          "[cmake]") {
  tpulint::testing::TempDir dir;
  dir.write("k.cu", "");
  dir.write("CMakeLists.txt", "pybind11_add_module(_ext k.cu)\nset(X \"never closed\n");
  app::Engine engine({});
  FileResult r = engine.analyze_file(dir.path() / "CMakeLists.txt", "CMakeLists.txt");
  REQUIRE(r.findings.size() == 2);
  const Finding& note = r.findings[0].check_id == "TPU901" ? r.findings[0] : r.findings[1];
  const Finding& target = r.findings[0].check_id == "TPU901" ? r.findings[1] : r.findings[0];
  CHECK(target.check_id == "TPU118");
  CHECK(note.check_id == "TPU901");
  CHECK(note.start == Position{2, 7});
  CHECK(note.message == "CMake syntax error: unterminated quoted argument; the commands after it were not analyzed");
}
