// A Clang module as a build of other sources would make it: the entry the binary looks for, the
// binary's version, and another interface. The binary must refuse it (cxx/clang_loader.cpp)
// rather than use structs whose layout may differ.
#include <string_view>

#include "core/version.h"
#include "cxx/clang_frontend.h"

extern "C" __attribute__((visibility("default"))) const tpulint::cxx::ClangModule* tpulint_clang_module_v2() {
  static const tpulint::cxx::ClangModule module{
      .interface = "0000000000000000",
      .version = tpulint::kToolVersion,
      .make_parser = nullptr,
  };
  return &module;
}
