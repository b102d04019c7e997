#include "core/project_index.h"

#include <algorithm>
#include <set>

#include "core/result_cache.h"

namespace tpulint {

namespace {

std::string_view parent_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
}

std::string_view name_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

ProjectIndex ProjectIndex::from_paths(std::span<const std::string> paths) {
  std::set<std::string_view> packages;  // directories holding an __init__.py
  for (const std::string& p : paths)
    if (name_of(p) == "__init__.py") packages.insert(parent_of(p));
  std::set<std::string_view> roots;  // directories that modules are imported from
  roots.insert("");
  std::set<std::string> own;
  for (std::string_view dir : packages) {
    if (dir.empty()) continue;  // the root itself is a package: its contents are still its modules
    std::string_view parent = parent_of(dir);
    if (packages.contains(parent) && !parent.empty()) continue;
    own.insert(std::string(name_of(dir)));
    roots.insert(parent);
  }
  for (const std::string& p : paths) {
    std::string_view name = name_of(p);
    if (!name.ends_with(".py") || name == "__init__.py" || name == "setup.py" || name == "conftest.py") continue;
    if (roots.contains(parent_of(p))) own.insert(std::string(name.substr(0, name.size() - 3)));
  }
  ProjectIndex index;
  index.own_modules_.assign(own.begin(), own.end());
  return index;
}

bool ProjectIndex::is_own_module(std::string_view module) const {
  std::string_view top = module.substr(0, module.find('.'));
  return std::binary_search(own_modules_.begin(), own_modules_.end(), top);
}

uint64_t ProjectIndex::key() const {
  std::string text;
  for (const std::string& m : own_modules_) text += m + "\n";
  return content_hash(text) | 1;
}

}  // namespace tpulint
