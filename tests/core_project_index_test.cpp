// ProjectIndex: the scanned project's own top-level Python modules, from the discovered paths.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/project_index.h"

using tpulint::ProjectIndex;

TEST_CASE("project index: package roots at any depth and top-level modules are the project's own", "[core][index]") {
  std::vector<std::string> paths = {
      "bitsandbytes/__init__.py",         "bitsandbytes/functional.py", "bitsandbytes/nn/__init__.py",
      "src/liger_kernel/__init__.py",     "src/liger_kernel/ops/rms_norm.py", "train.py",
      "setup.py",                         "tests/test_ops.py",          "csrc/kernels.cu",
      "python/triton_ops/__init__.py",    "docs/conf.py",               "src/helpers.py"};
  ProjectIndex index = ProjectIndex::from_paths(paths);
  CHECK(index.own_modules() == std::vector<std::string>{"bitsandbytes", "helpers", "liger_kernel", "train", "triton_ops"});
  CHECK(index.is_own_module("bitsandbytes"));
  CHECK(index.is_own_module("bitsandbytes.nn.modules"));
  CHECK(index.is_own_module("liger_kernel.ops"));
  // Not the project's: a subpackage is not a top-level name, and nothing else is.
  CHECK_FALSE(index.is_own_module("nn"));
  CHECK_FALSE(index.is_own_module("flash_attn"));
  CHECK_FALSE(index.is_own_module("setup"));
  CHECK_FALSE(index.is_own_module("test_ops"));  // under tests/, a directory that is no package root
  CHECK_FALSE(index.is_own_module("conf"));
  // The key changes with the modules, and only with them.
  CHECK(index.key() != 0);
  CHECK(index.key() == ProjectIndex::from_paths(paths).key());
  paths.push_back("flash_attn/__init__.py");
  CHECK(ProjectIndex::from_paths(paths).key() != index.key());
  CHECK(ProjectIndex::from_paths(paths).is_own_module("flash_attn"));
}
