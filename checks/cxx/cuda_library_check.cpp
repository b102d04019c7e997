#include "checks/cxx/cuda_library_check.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "data/cuda_libraries.h"
#include "data/cuda_library_headers.h"

namespace tpulint::checks {

namespace {

const data::CudaLibrariesRow* library_row(std::string_view library) {
  for (const auto& r : data::kCudaLibraries)
    if (r.library == library) return &r;
  return nullptr;
}

// The library whose header `spelled` (as written in the #include) is, or "".
std::string_view header_library(std::string_view spelled) {
  for (const auto& r : data::kCudaLibraryHeaders) {
    std::string_view h = r.header;
    if (h.ends_with('/')) {
      if (spelled.starts_with(h)) return r.library;
      for (size_t at = spelled.find(h, 1); at != std::string_view::npos; at = spelled.find(h, at + 1))
        if (spelled[at - 1] == '/') return r.library;  // "x/cub/...": the directory after a slash
    } else if (spelled == h || (spelled.ends_with(h) && spelled[spelled.size() - h.size() - 1] == '/')) {
      return r.library;
    }
  }
  return {};
}

// `cublas` matches cublasSgemm (the prefix, then an upper-case letter), not cublas_helper;
// `curand_` matches curand_init.
bool matches_prefix(std::string_view name, std::string_view prefix) {
  if (name.starts_with("::")) name.remove_prefix(2);
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return false;
  char next = name[prefix.size()];
  return prefix.ends_with('_') || (next >= 'A' && next <= 'Z');
}

template <typename F>
void for_each_word(std::string_view words, F f) {
  while (!words.empty()) {
    size_t space = words.find(' ');
    f(words.substr(0, space));
    if (space == std::string_view::npos) break;
    words.remove_prefix(space + 1);
  }
}

constexpr HoursRange kPerCallHours{0.25, 1};

}  // namespace

void CudaLibraryCheck::check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const {
  const data::CudaLibrariesRow* lib = library_row(library_);
  if (!lib) return;
  std::string name(lib->name), hint(lib->use);
  bool library_reported = false;
  for (const cxx::IncludeFact& inc : facts.includes) {
    if (header_library(inc.spelled) != library_) continue;
    ctx.report(inc.span, fmt::format("includes {} ('{}'), a CUDA-only library", name, inc.spelled), hint, name);
    library_reported = true;
    break;
  }
  std::vector<std::string_view> prefixes, namespaces;
  for_each_word(lib->calls, [&](std::string_view w) { (w.ends_with("::") ? namespaces : prefixes).push_back(w); });

  std::set<std::string_view> seen;
  for (const cxx::CallFact& call : facts.calls) {
    bool ours = std::any_of(prefixes.begin(), prefixes.end(),
                            [&](std::string_view p) { return matches_prefix(call.callee, p); });
    if (!ours || !seen.insert(call.callee).second) continue;
    Finding& f = ctx.report(call.span, fmt::format("{} call '{}' has no TPU equivalent", name, call.callee), hint, name);
    if (library_reported) f.hours = kPerCallHours;
    library_reported = true;
  }
  if (library_reported || namespaces.empty()) return;
  for (const cxx::QualifiedNameFact& q : facts.qualified_names) {
    bool ours = std::any_of(namespaces.begin(), namespaces.end(),
                            [&](std::string_view ns) { return q.name.starts_with(ns); });
    if (!ours) continue;
    ctx.report(q.span, fmt::format("uses {} ('{}'), a CUDA-only library", name, q.name), hint, name);
    return;
  }
}

}  // namespace tpulint::checks
