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

}  // namespace

std::string_view cuda_header_library(std::string_view spelled) {
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

namespace {

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
  // Its #includes in file order (Clang's, then those of skipped branches): the first brings it in.
  std::vector<const cxx::IncludeFact*> includes;
  for (const cxx::IncludeFact& inc : facts.includes)
    if (cuda_header_library(inc.spelled) == library_) includes.push_back(&inc);
  std::sort(includes.begin(), includes.end(),
            [](const cxx::IncludeFact* a, const cxx::IncludeFact* b) { return a->span.begin < b->span.begin; });
  bool library_reported = false;
  for (const cxx::IncludeFact* inc : includes) {
    if (library_reported) {
      ctx.touch(inc->span, name);
      continue;
    }
    ctx.report(inc->span, fmt::format("includes {} ('{}'), a CUDA-only library", name, inc->spelled), hint, name);
    library_reported = true;
  }
  std::vector<std::string_view> prefixes, namespaces, other_names;
  for_each_word(lib->calls, [&](std::string_view w) { (w.ends_with("::") ? namespaces : prefixes).push_back(w); });
  for_each_word(lib->names, [&](std::string_view w) { other_names.push_back(w); });
  auto is_call_name = [&](std::string_view n) {
    return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return matches_prefix(n, p); });
  };

  // The calls: Clang's and the lexical pass's in active code, the tokens' in skipped branches.
  struct Call {
    uint32_t offset;
    std::string_view callee;
    ByteSpan span;
    bool in_macro_body = false;
  };
  std::vector<Call> calls;
  for (const cxx::CallFact& call : facts.calls)
    if (is_call_name(call.callee)) calls.push_back({call.span.begin, call.callee, call.span, call.in_macro_body});
  for (const cxx::NameUseFact& n : facts.names) {
    if (!is_call_name(n.name)) continue;
    for (const cxx::NameUseFact::Use& use : n.uses)
      if (use.called && use.inactive)
        calls.push_back({use.offset, n.name, {use.offset, use.offset + uint32_t(n.name.size())}, false});
  }
  std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) { return a.offset < b.offset; });
  // Every call is a finding, as a runtime API call is (cuda_api_group.h): each is a line the port
  // rewrites. The same position twice (Clang's and the tokens') is one call.
  std::set<uint32_t> seen;
  for (const Call& call : calls) {
    if (!seen.insert(call.span.begin).second) continue;
    Finding& f = ctx.report(call.span, fmt::format("{} call '{}' has no TPU equivalent", name, call.callee), hint, name);
    if (library_reported) f.hours = kPerCallHours;
    library_reported = true;
    // A macro's body is changed once where it is defined: its expansions share one price.
    f.priced_once = call.in_macro_body;
  }

  // Every other use of its names is a line to touch (settle_touch_lines drops those of reported lines).
  for (const cxx::NameUseFact& n : facts.names) {
    bool ours = is_call_name(n.name) || std::any_of(other_names.begin(), other_names.end(), [&](std::string_view w) {
                  return w.ends_with('_') ? matches_prefix(n.name, w) : n.name == w;
                });
    bool names_namespace = std::any_of(namespaces.begin(), namespaces.end(), [&](std::string_view ns) {
      return ns.substr(0, ns.size() - 2) == n.name;
    });
    if (!ours && !names_namespace) continue;
    for (const cxx::NameUseFact::Use& use : n.uses)
      if (ours || use.scope) ctx.touch({use.offset, use.offset + uint32_t(n.name.size())}, name);
  }

  if (library_reported || namespaces.empty()) return;
  for (const cxx::QualifiedNameFact& q : facts.qualified_names) {
    if (q.inactive) continue;
    bool ours = std::any_of(namespaces.begin(), namespaces.end(),
                            [&](std::string_view ns) { return q.name.starts_with(ns); });
    if (!ours) continue;
    ctx.report(q.span, fmt::format("uses {} ('{}'), a CUDA-only library", name, q.name), hint, name);
    return;
  }
}

}  // namespace tpulint::checks
