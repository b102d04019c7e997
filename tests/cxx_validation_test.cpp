// The validation harness of docs/validation/cxx.md, hidden from normal runs ("[.]" tag):
//   TPULINT_VALIDATION_DIR=/work/repos/mmcv build/tests/tpulint_tests "[.cxx-validation]"
// parses every C/C++/CUDA file under the directory header-free, one at a time, and prints one
// tab-separated line per file: path, status (ok / fatal / failed), kernels, launches, Clang
// errors, wall-clock milliseconds, CPU milliseconds (the machine may be shared: CPU time is
// the steadier measure).
#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/discovery.h"
#include "cxx/clang_frontend.h"

using namespace tpulint;

TEST_CASE("C/C++/CUDA validation harness", "[.cxx-validation]") {
  const char* dir = std::getenv("TPULINT_VALIDATION_DIR");
  REQUIRE(dir);
  std::filesystem::path root(dir);
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root); it != std::filesystem::recursive_directory_iterator();
       ++it) {
    if (it->is_directory() && it->path().filename().string().starts_with('.')) it.disable_recursion_pending();
    Language lang = it->is_regular_file() ? language_for_path(it->path()) : Language::None;
    if (lang == Language::Cxx || lang == Language::Cuda) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  cxx::ClangFrontend frontend({});
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string rel = std::filesystem::relative(path, root).generic_string();
    SourceFile file(rel, std::filesystem::absolute(path), language_for_path(path), ss.str());
    auto start = std::chrono::steady_clock::now();
    std::clock_t cpu_start = std::clock();
    std::string status = "ok";
    size_t kernels = 0, launches = 0, errors = 0;
    try {
      cxx::NativeFile facts = frontend.parse(file);
      for (const auto& f : facts.functions) kernels += f.is_kernel;
      launches = facts.launches.size();
      errors = facts.error_count;
      if (!facts.fatal_error.empty()) status = "fatal:" + facts.fatal_error;
    } catch (const std::exception& e) {
      status = std::string("failed:") + e.what();
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    double cpu_ms = 1000.0 * double(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    std::cout << rel << '\t' << status << '\t' << kernels << '\t' << launches << '\t' << errors << '\t' << ms << '\t'
              << cpu_ms << '\n';
  }
}
