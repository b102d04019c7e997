// The project-aware parts of the custom-kernel and CUDA-only-library checks, which read the
// checkout around a file: a library's own package is not a dependency (TPU501, TPU502), and a
// module that is a Python file of the project is not a compiled extension (TPU117).
#include <catch2/catch.hpp>
#include <algorithm>

#include "app/engine.h"
#include "temp_dir.h"

using namespace tpulint;
using tpulint::testing::TempDir;

namespace {

// The IDs of the findings of `relative` (a file of the project at `root`), in order.
std::vector<std::string> ids(const std::filesystem::path& root, const std::string& relative) {
  app::EngineOptions options;
  options.select = {"TPU11", "TPU50"};
  app::Engine engine(options);
  FileResult r = engine.analyze_file(root / relative, relative);
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.check_id + ":" + std::to_string(f.start.line));
  return out;
}

}  // namespace

TEST_CASE("a library's own package is not reported as a CUDA-only dependency", "[python][kernels]") {
  TempDir dir;
  dir.write("apex/__init__.py", "");
  dir.write("apex/optimizers/__init__.py", "");
  dir.write("apex/optimizers/fused_adam.py",
            "from apex.multi_tensor_apply import multi_tensor_applier\n"
            "from .. import amp\n"
            "import flash_attn\n");
  dir.write("tests/test_adam.py",
            "import apex\n"
            "from apex.optimizers import FusedAdam\n"
            "opt = FusedAdam(params)\n"
            "model, opt = apex.amp.initialize(model, opt)\n");
  CHECK(ids(dir.path(), "apex/optimizers/fused_adam.py") == std::vector<std::string>{"TPU501:3"});
  CHECK(ids(dir.path(), "tests/test_adam.py").empty());
}

TEST_CASE("a package under src/ and a module beside the importing script are the project's own",
          "[python][kernels]") {
  TempDir dir;
  dir.write("src/xformers/__init__.py", "");
  dir.write("examples/attn.py", "import xformers.ops as xops\nout = xops.memory_efficient_attention(q, k, v)\n");
  dir.write("hopper/flash_attn_interface.py", "import torch\n");
  dir.write("hopper/bench.py", "import flash_attn_interface\nimport flash_attn\n");
  CHECK(ids(dir.path(), "examples/attn.py").empty());
  CHECK(ids(dir.path(), "hopper/bench.py") == std::vector<std::string>{"TPU501:2"});
}

TEST_CASE("the scan root itself can be the library's package", "[python][kernels]") {
  TempDir dir;
  dir.write("apex/__init__.py", "");
  dir.write("apex/optimizers/fused_adam.py", "import apex.amp\nimport bitsandbytes\n");
  CHECK(ids(dir.path() / "apex", "optimizers/fused_adam.py") == std::vector<std::string>{"TPU501:2"});
}

TEST_CASE("a Python module named like an extension is not a compiled extension", "[python][kernels]") {
  TempDir dir;
  dir.write("det/__init__.py", "");
  dir.write("det/config/__init__.py", "");
  dir.write("det/config/defaults.py", "_C = object()\n");
  dir.write("det/config/config.py", "from .defaults import _C\n");
  dir.write("det/layers/__init__.py", "");
  dir.write("det/layers/nms_cuda.py", "def nms(b, s):\n    return b\n");
  dir.write("det/layers/nms.py",
            "import det.layers.nms_cuda\n"
            "from det import _C\n"
            "from . import roi_align_cuda\n"
            "from .nms_cuda import nms\n");
  CHECK(ids(dir.path(), "det/config/config.py").empty());
  CHECK(ids(dir.path(), "det/layers/nms.py") == std::vector<std::string>{"TPU117:2", "TPU117:3"});
}

TEST_CASE("a kernel language imported to write the file's kernels is priced with them", "[python][kernels]") {
  TempDir dir;
  const std::string kernel =
      "@triton.jit\n"
      "def scale_kernel(x, out, n, BLOCK: tl.constexpr):\n"
      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
      "    tl.store(out + offs, tl.load(x + offs) * 2.0, mask=offs < n)\n";
  dir.write("ops/scale.py", "import triton\nimport triton.language as tl\n" + kernel);
  dir.write("ops/launch.py", "import triton\ndef grid(n):\n    return (triton.cdiv(n, 1024),)\n");
  auto hours_of = [&](const std::string& relative) {
    app::EngineOptions options;
    options.select = {"TPU501"};
    app::Engine engine(options);
    FileResult r = engine.analyze_file(dir.path() / relative, relative);
    REQUIRE(r.findings.size() == 1);
    return r.findings[0].hours;
  };
  CHECK(hours_of("ops/scale.py").high == 0);  // the kernel's own finding prices the rewrite
  CHECK(hours_of("ops/launch.py").high == 8);  // a file that only uses Triton still needs the swap
}
