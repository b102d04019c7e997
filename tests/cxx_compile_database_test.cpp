// The compile database read without Clang: its commands cut down to what a syntax-only parse
// needs (issue 34: a repository's compile_commands.json made Clang write a dependency file over
// ~/.bashrc, serialized diagnostics, logs and a module cache anywhere the user can write).
#include <catch2/catch.hpp>

#include "cxx/compile_database.h"

using namespace tpulint;
using namespace tpulint::cxx;

namespace {

std::vector<std::string> allowed(std::vector<std::string> args, Language language = Language::Cxx,
                                 DatabaseOrigin origin = DatabaseOrigin::Tree) {
  return allowed_arguments(args, language, origin);
}

}  // namespace

TEST_CASE("compile database: arguments that write, run or read anything are left out", "[cxx][compile-db]") {
  const std::vector<std::string> hostile = {
      "clang++", "-Xclang", "-dependency-file", "-Xclang", "/home/victim/.bashrc", "-Xclang", "-MT", "-Xclang", "x",
      "-MD", "-MF", "/tmp/dep", "-MMD", "-MJ/tmp/j", "-o", "/tmp/out.o", "-serialize-diagnostic-file", "/tmp/s",
      "--serialize-diagnostics", "/tmp/s2", "-diagnostic-log-file", "/tmp/log", "-header-include-file", "/tmp/h",
      "-fmodules-cache-path=/tmp/cache", "-fmodules", "-fplugin=/tmp/evil.so", "-fpass-plugin=/tmp/p.so", "-Xclang",
      "-load", "-Xclang", "/tmp/evil.so", "-mllvm", "-debug-pass=Structure", "@/tmp/response", "-Wp,-MD,/tmp/wp",
      "-Wl,-o,/tmp/l", "-Wa,-o,/tmp/a", "-Xlinker", "/tmp/x", "-Xpreprocessor", "-MD", "-B/tmp/bin", "-B", "/tmp/bin",
      "--config", "/tmp/clang.cfg", "-ivfsoverlay", "/tmp/o.yaml", "-include-pch", "/tmp/p.pch",
      "-working-directory", "/tmp", "-fcrash-diagnostics-dir=/tmp/crash", "-save-temps", "-ftime-trace",
      "-fprofile-instr-generate=/tmp/prof", "--cuda-path=/tmp/cuda", "-Xcompiler", "-fPIC", "-gencode",
      "arch=compute_80,code=sm_80", "-ccbin", "/tmp/gcc", "--expt-relaxed-constexpr", "-Wfatal-errors",
      "other.cpp", "/abs/other.cu", "-c", "src/k.cpp"};
  const std::vector<std::string> kept = allowed(hostile);
  INFO(Catch::Detail::stringify(kept));
  // Nothing survives: not a path, not a pass-through, not the -fPIC that -Xcompiler carried
  // (a pass-through's value is left out with it).
  for (const std::string& a : kept) {
    CHECK(a.find('/') == std::string::npos);
    CHECK(a.find('@') == std::string::npos);
  }
  CHECK(kept.empty());
}

TEST_CASE("compile database: the arguments a parse needs are kept, in order", "[cxx][compile-db]") {
  CHECK(allowed({"c++", "-DWITH_CUDA", "-D", "N=3", "-UNDEBUG", "-Iinclude", "-I", "/abs/include", "-isystem", "third",
                 "-iquote", "q", "-idirafter", "after", "-include", "config.h", "-std=c++17", "--target=x86_64-linux-gnu",
                 "--cuda-gpu-arch=sm_80", "-march=native", "-mavx2", "-m64", "-O2", "-Wall", "-Wno-unused", "-w",
                 "-fno-exceptions", "-fopenmp", "-pthread", "-c", "k.cpp", "-o", "k.o"}) ==
        std::vector<std::string>{"-DWITH_CUDA", "-D", "N=3", "-UNDEBUG", "-Iinclude", "-I", "/abs/include", "-isystem",
                                 "third", "-iquote", "q", "-idirafter", "after", "-include", "config.h", "-std=c++17",
                                 "--target=x86_64-linux-gnu", "--cuda-gpu-arch=sm_80", "-march=native", "-mavx2",
                                 "-m64", "-O2", "-Wall", "-Wno-unused", "-w", "-fno-exceptions", "-fopenmp",
                                 "-pthread"});
}

TEST_CASE("compile database: a target must be a plain triple, a sysroot the user's", "[cxx][compile-db]") {
  CHECK(allowed({"c++", "-target", "aarch64-linux-gnu"}) == std::vector<std::string>{"--target=aarch64-linux-gnu"});
  CHECK(allowed({"c++", "--target=../../../home/victim"}).empty());
  CHECK(allowed({"c++", "-target", "a/b"}).empty());
  CHECK(allowed({"c++", "--sysroot=/home/victim", "-isysroot", "/x"}).empty());
  CHECK(allowed({"c++", "--sysroot=/opt/sdk"}, Language::Cxx, DatabaseOrigin::User) ==
        std::vector<std::string>{"--sysroot=/opt/sdk"});
}

TEST_CASE("compile database: a CUDA file is parsed as CUDA whatever -x its command says", "[cxx][compile-db]") {
  // Issue 34: a database compiling .cu as `-x c++` silently dropped every kernel and launch.
  CHECK(allowed({"nvcc", "-x", "c++", "-DX", "k.cu"}, Language::Cuda) == std::vector<std::string>{"-x", "cuda", "-DX"});
  CHECK(allowed({"clang++", "-xc++", "k.cu"}, Language::Cuda) == std::vector<std::string>{"-x", "cuda"});
  CHECK(allowed({"nvcc", "-x", "cu", "k.cpp"}, Language::Cxx) == std::vector<std::string>{"-x", "cuda"});
  CHECK(allowed({"c++", "-x", "objective-c", "k.cpp"}).empty());
}

TEST_CASE("compile database: a command line splits as Clang splits it", "[cxx][compile-db]") {
  CHECK(split_command_line("c++  -DA='x y' -DB=\"q \\\" r\" -I\\ dir\tk.cpp") ==
        std::vector<std::string>{"c++", "-DA=x y", "-DB=q \" r", "-I dir", "k.cpp"});
  CHECK(split_command_line("").empty());
  CHECK(split_command_line("a 'unterminated") == std::vector<std::string>{"a", "unterminated"});
}

TEST_CASE("compile database: entries are read, and a bad one is an error naming it", "[cxx][compile-db]") {
  const char* json = R"([
    {"directory": "/p/build", "file": "../src/a.cpp", "arguments": ["c++", "-DA", "-c", "../src/a.cpp"]},
    {"directory": "/p/build", "file": "/p/src/k.cu", "command": "nvcc -DK -x c++ -c /p/src/k.cu"},
    {"directory": "/p/build", "file": "/p/lib/c.c", "command": "cc -DC -c /p/lib/c.c"}
  ])";
  CompileDatabase db = CompileDatabase::parse(json, "/p/build", DatabaseOrigin::Tree);
  CHECK(db.size() == 3);
  auto a = db.command_for("/p/src/a.cpp", Language::Cxx);
  REQUIRE(a);
  CHECK(a->directory == "/p/build");
  CHECK(a->arguments == std::vector<std::string>{"-DA"});
  auto k = db.command_for("/p/src/k.cu", Language::Cuda);
  REQUIRE(k);
  CHECK(k->arguments == std::vector<std::string>{"-x", "cuda", "-DK"});
  // A header takes the flags of the nearest listed file, in that file's language.
  auto h = db.command_for("/p/src/a.h", Language::Cxx);
  REQUIRE(h);
  CHECK(h->arguments == std::vector<std::string>{"-x", "c++", "-DA"});
  auto ch = db.command_for("/p/lib/c.h", Language::Cxx);
  REQUIRE(ch);
  CHECK(ch->arguments == std::vector<std::string>{"-x", "c", "-DC"});
  auto cuh = db.command_for("/p/src/k.cuh", Language::Cuda);
  REQUIRE(cuh);
  CHECK(cuh->arguments == std::vector<std::string>{"-x", "cuda", "-DK"});

  for (const char* bad : {"{", "{}", "[1]", R"([{"file": "a.c"}])", R"([{"directory": "/", "file": 3}])",
                          R"([{"directory": "/", "file": "a.c"}])", R"([{"directory": "/", "file": "a.c", "arguments": []}])",
                          R"([{"directory": "/", "file": "a.c", "arguments": [1]}])"}) {
    INFO(bad);
    CHECK_THROWS_AS(CompileDatabase::parse(bad, "/", DatabaseOrigin::Tree), CompileDatabaseError);
  }
  CHECK(CompileDatabase::parse("[]", "/", DatabaseOrigin::Tree).command_for("/x.cpp", Language::Cxx) == std::nullopt);
}

TEST_CASE("compile database: the include directories of a command, absolute", "[cxx][compile-db]") {
  std::vector<std::string> args = {"-Iinc", "-I", "/abs", "-isystem", "../sys", "-iquote", "q", "-idirafter", "/after",
                                   "-DI=x"};
  CHECK(include_directories(args, "/p/build") ==
        std::vector<std::filesystem::path>{"/p/build/inc", "/abs", "/p/sys", "/p/build/q", "/after"});
}
