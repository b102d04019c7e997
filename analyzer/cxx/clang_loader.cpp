// Loads the Clang module (libtpulint_clang.so) at first use. Binding libclang-cpp and libLLVM
// at start-up cost ~30M instructions and ~70 MB of mapped pages on every run, more than a
// whole cached scan; a scan with no C/C++ file to parse now never pays it. A worker forked
// after the module was loaded inherits it.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "core/version.h"
#include "cxx/clang_frontend.h"
#include "cxx/clang_interface.h"

// Defined when the executable itself links the module's code (the libFuzzer target, whose
// coverage must see Clang's frontend from its first input); otherwise null, and it is loaded.
extern "C" const tpulint::cxx::ClangModule* tpulint_clang_module_v2() __attribute__((weak));

namespace tpulint::cxx {

namespace fs = std::filesystem;

namespace {

// Where the module is looked for, in order: $TPULINT_CLANG_MODULE (a file), beside the
// executable (the build directory), PREFIX/lib/tpulint for an installed PREFIX/bin/tpulint, and
// the build directory this binary was built in (the test binaries live in build/tests/).
std::vector<fs::path> module_candidates() {
  if (const char* env = std::getenv("TPULINT_CLANG_MODULE"); env && *env) return {fs::path(env)};
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(exe.parent_path() / kClangModuleFile);
    out.push_back(exe.parent_path().parent_path() / "lib" / "tpulint" / kClangModuleFile);
  }
  out.push_back(fs::path(TPULINT_CLANG_MODULE_DIR) / kClangModuleFile);
  return out;
}

const ClangModule& load_module() {
  if (tpulint_clang_module_v2) return *tpulint_clang_module_v2();
  std::vector<fs::path> candidates = module_candidates();
  std::string tried;
  for (const fs::path& path : candidates) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error("cannot load the C/C++ frontend " + path.string() + ": " + dlerror());
    auto entry = reinterpret_cast<const ClangModule* (*)()>(dlsym(handle, kClangModuleEntry));
    if (!entry)
      throw std::runtime_error("the C/C++ frontend " + path.string() + " is not one of this tpulint's (no entry " +
                               kClangModuleEntry + "): reinstall both together");
    const ClangModule* module = entry();
    if (module->interface != kClangInterface)
      throw std::runtime_error("the C/C++ frontend " + path.string() + " was built from other sources than this tpulint (interface " +
                               std::string(module->interface) + ", this tpulint's " + kClangInterface +
                               "): rebuild or reinstall both together");
    if (module->version != kToolVersion)
      throw std::runtime_error("the C/C++ frontend " + path.string() + " is version " + std::string(module->version) +
                               ", this tpulint is " + std::string(kToolVersion) + ": reinstall both together");
    return *module;  // never unloaded: parsers and databases it made may live until exit
  }
  throw std::runtime_error(std::string("the C/C++ frontend (") + kClangModuleFile + ") is not installed; looked at " +
                           tried + " (set TPULINT_CLANG_MODULE to its path)");
}

// Loaded once per process; a failure is remembered and reported to every caller.
const ClangModule& module() {
  static std::once_flag once;
  static const ClangModule* loaded = nullptr;
  static std::string error;
  std::call_once(once, [] {
    try {
      loaded = &load_module();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (!loaded) throw std::runtime_error(error);
  return *loaded;
}

}  // namespace

void load_clang_module() { module(); }

std::string clang_module_identity() {
  if (tpulint_clang_module_v2) return "linked in";
  for (const fs::path& path : module_candidates()) {
    std::error_code ec;
    auto size = fs::file_size(path, ec);
    if (ec) continue;
    auto mtime = fs::last_write_time(path, ec);
    if (ec) continue;
    return path.string() + " " + std::to_string(size) + " " + std::to_string(mtime.time_since_epoch().count());
  }
  return "missing";
}

ClangFrontend::ClangFrontend(ClangFrontendOptions options) : parser_(module().make_parser(std::move(options))) {}
ClangFrontend::~ClangFrontend() = default;

}  // namespace tpulint::cxx
