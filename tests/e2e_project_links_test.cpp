// The project-wide links (core/project_links.h): code the project reaches only through guards,
// in another module, is guarded code. Each rule both ways: the guarded use that makes a file or
// a function optional, and the near miss (one unguarded use) that keeps it a blocker.
#include <catch2/catch.hpp>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/engine.h"
#include "cli_runner.h"

using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

json scan(const TempDir& dir, const std::string& extra = "--no-cache") { return tpulint::testing::scan_report(dir, extra); }

// The JSON report `tpulint merge` makes of the `n` shards' scans of `dir`.
std::string merged_shards(const TempDir& dir, unsigned n) {
  TempDir out;
  std::string shards;
  for (unsigned k = 1; k <= n; ++k) {
    auto r = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero --shard " + std::to_string(k) + "/" +
                         std::to_string(n));
    REQUIRE(r.exit_code == 0);
    shards += " '" + out.write("s" + std::to_string(k) + ".json", r.out).string() + "'";
  }
  auto merged = run_tpulint("merge" + shards + " --format json --exit-zero");
  REQUIRE(merged.exit_code == 0);
  return merged.out;
}

// The findings of `path` whose check is `id`: each one's context.
std::vector<std::string> contexts(const json& report, const std::string& path, const std::string& id) {
  std::vector<std::string> out;
  for (const json& f : report.at("findings"))
    if (f.at("path") == path && f.at("id") == id) {
      out.push_back(f.at("context"));
      // A guarded finding is discounted, whatever made it guarded.
      CHECK(f.at("discounted").get<bool>() == (f.at("context") == "guarded"));
    }
  return out;
}

// The context of the one finding of `path` whose check is `id`.
std::string only_context(const json& report, const std::string& path, const std::string& id) {
  std::vector<std::string> all = contexts(report, path, id);
  INFO(path << " " << id);
  REQUIRE(all.size() == 1);
  return all[0];
}

const std::string kTritonKernels =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def dtw_kernel(cost, trace, x, n: tl.constexpr, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    for k in range(1, n):\n"
    "        c0 = tl.load(cost + offs - 1)\n"
    "        c1 = tl.load(cost + offs)\n"
    "        c = tl.minimum(c0, c1)\n"
    "        tl.store(trace + offs, tl.where(c0 < c1, 1, 0))\n"
    "        tl.store(cost + offs, tl.load(x + offs) + c)\n"
    "def dtw_cuda(x):\n"
    "    dtw_kernel[(1,)](x, x, x, 4, BLOCK=1024)\n"
    "    return x\n";

void write_guarded_user(const TempDir& dir) {
  dir.write("pkg/__init__.py", "from .align import align\n");
  dir.write("pkg/align.py",
            "import torch\n"
            "def align(x):\n"
            "    if x.is_cuda:\n"
            "        try:\n"
            "            from .kernels import dtw_cuda\n"
            "            return dtw_cuda(x)\n"
            "        except RuntimeError:\n"
            "            pass\n"
            "    return x.cumsum(0)\n");
  dir.write("pkg/kernels.py", kTritonKernels);
}

}  // namespace

TEST_CASE("links: a kernel module imported only behind a device guard is guarded code", "[e2e][links]") {
  TempDir dir;
  write_guarded_user(dir);
  json report = scan(dir);
  std::vector<std::string> kernel = contexts(report, "pkg/kernels.py", "TPU111");
  REQUIRE(kernel.size() == 1);
  CHECK(kernel[0] == "guarded");
  for (const json& f : report.at("findings"))
    if (f.at("path") == "pkg/kernels.py") CHECK(f.at("severity") == "info");

  SECTION("and stays so when the results come from the cache") {
    TempDir cache;
    scan(dir, "--cache-dir '" + cache.str() + "'");
    json cached = scan(dir, "--cache-dir '" + cache.str() + "'");
    CHECK(contexts(cached, "pkg/kernels.py", "TPU111") == kernel);
  }
}

TEST_CASE("links: one unguarded import of the kernel module keeps it a blocker", "[e2e][links]") {
  TempDir dir;
  write_guarded_user(dir);
  dir.write("pkg/train.py", "from .kernels import dtw_cuda\ndef step(x):\n    return dtw_cuda(x)\n");
  CHECK(only_context(scan(dir), "pkg/kernels.py", "TPU111") != "guarded");
}

TEST_CASE("links: an import from tests neither guards nor unguards a module", "[e2e][links]") {
  TempDir dir;
  write_guarded_user(dir);
  dir.write("tests/test_kernels.py", "from pkg.kernels import dtw_cuda\ndef test_dtw():\n    dtw_cuda(1)\n");
  CHECK(contexts(scan(dir), "pkg/kernels.py", "TPU111") == std::vector<std::string>{"guarded"});
}

TEST_CASE("links: a guard whose other path uses the same module does not make it optional", "[e2e][links]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/kernels.py", kTritonKernels);
  dir.write("pkg/run.py",
            "def run(x, n_gpus):\n"
            "    if n_gpus == 1:\n"
            "        from .kernels import dtw_cuda\n"
            "        return dtw_cuda(x)\n"
            "    else:\n"
            "        from .kernels import dtw_cuda\n"
            "        return spawn(dtw_cuda, x)\n");
  CHECK(only_context(scan(dir), "pkg/kernels.py", "TPU111") != "guarded");
}

namespace {

const std::string kCudaKernel =
    "__global__ void scale_kernel(float* out, const float* in, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int k = 0; k < 8 && i < n; ++k) { out[i] = in[i] * a + out[(i + k) % n] * in[(i * k) % n]; }\n"
    "}\n"
    "void scale(float* out, const float* in, float a, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(out, in, a, n); }\n";

void write_extension(const TempDir& dir, const std::string& importer) {
  dir.write("setup.py",
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('fused_scale', sources=['csrc/scale.cu'])],\n"
            "      cmdclass={'build_ext': BuildExtension})\n");
  dir.write("csrc/scale.cu", kCudaKernel);
  dir.write("pkg/__init__.py", "from .layers import scale\n");
  dir.write("pkg/layers.py", importer);
}

}  // namespace

TEST_CASE("links: an extension imported only as an optional dependency: its kernels and build are guarded", "[e2e][links]") {
  TempDir dir;
  write_extension(dir,
                  "import torch\n"
                  "try:\n"
                  "    import fused_scale\n"
                  "except ImportError:\n"
                  "    fused_scale = None\n"
                  "def scale(x, a):\n"
                  "    if fused_scale is not None and x.is_cuda:\n"
                  "        return fused_scale.scale(x, a)\n"
                  "    return x * a\n");
  json report = scan(dir);
  CHECK(contexts(report, "csrc/scale.cu", "TPU101") == std::vector<std::string>{"guarded"});
  CHECK(contexts(report, "setup.py", "TPU110") == std::vector<std::string>{"guarded"});
}

TEST_CASE("links: an extension imported only where an old framework release is tested is dead code, not a blocker",
          "[e2e][links]") {
  auto build = [](const std::string& condition) {
    TempDir dir;
    write_extension(dir,
                    "import torch\n"
                    "if " + condition + ":\n"
                    "    import fused_scale\n"
                    "    def scale(x, a):\n"
                    "        return fused_scale.scale(x, a)\n"
                    "else:\n"
                    "    def scale(x, a):\n"
                    "        return x * a\n");
    return scan(dir);
  };
  // HRNet's bn_helper.py: InPlace-ABN only under `torch.__version__.startswith('0')`.
  const json old_release = build("torch.__version__.startswith('0')");
  CHECK(contexts(old_release, "csrc/scale.cu", "TPU101") == std::vector<std::string>{"guarded"});
  CHECK(contexts(old_release, "setup.py", "TPU110") == std::vector<std::string>{"guarded"});
  // A test current releases pass: the extension is the code that runs.
  const json current = build("torch.__version__ >= '1.8'");
  CHECK(only_context(current, "csrc/scale.cu", "TPU101") != "guarded");
  CHECK(only_context(current, "setup.py", "TPU110") != "guarded");
}

TEST_CASE("links: importing a module runs its packages' __init__, guarded where the import is", "[e2e][links]") {
  // HRNet's lib/models: bn_helper.py imports the InPlace-ABN package's module only under an old release's
  // test; the package's __init__.py files import that module too, and run only with that import.
  auto write = [](const TempDir& dir, bool other_user) {
    dir.write("lib/__init__.py", "");
    dir.write("lib/models/__init__.py", "from . import seg\n");
    dir.write("lib/models/seg.py", "from .bn_helper import BatchNorm2d\n");
    dir.write("lib/models/bn_helper.py",
              "import torch\n"
              "if torch.__version__.startswith('0'):\n"
              "    from .sync_bn.inplace_abn.bn import InPlaceABNSync as BatchNorm2d\n"
              "else:\n"
              "    BatchNorm2d = torch.nn.SyncBatchNorm\n");
    dir.write("lib/models/sync_bn/__init__.py", "from .inplace_abn import bn\n");
    dir.write("lib/models/sync_bn/inplace_abn/__init__.py", "from .bn import InPlaceABNSync\n");
    dir.write("lib/models/sync_bn/inplace_abn/bn.py",
              "import torch\n"
              "DEVICES = list(range(torch.cuda.device_count()))\n"
              "class InPlaceABNSync(torch.nn.Module):\n"
              "    pass\n");
    if (other_user) dir.write("lib/models/ocr.py", "from .sync_bn import bn\n");
  };
  TempDir dead;
  write(dead, false);
  CHECK(contexts(scan(dead), "lib/models/sync_bn/inplace_abn/bn.py", "TPU402") == std::vector<std::string>{"guarded"});
  // Another module imports the package where nothing guards it: its __init__ runs, and the module with it.
  TempDir used;
  write(used, true);
  CHECK(only_context(scan(used), "lib/models/sync_bn/inplace_abn/bn.py", "TPU402") != "guarded");
  // The packages holding the importer are not its to run: a library's root package stays live when one
  // of its modules imports another only under a guard.
  TempDir library;
  library.write("pkg/__init__.py", "from .core import run\n");
  library.write("pkg/core.py", "import torch\nN = torch.cuda.device_count()\ndef run():\n    return N\n");
  library.write("pkg/tools/__init__.py", "");
  library.write("pkg/tools/legacy.py",
                "import torch\n"
                "if torch.__version__ < '1.0':\n"
                "    from pkg.core import run\n");
  CHECK(only_context(scan(library), "pkg/core.py", "TPU402") != "guarded");
}

TEST_CASE("links: an extension imported unconditionally: its kernels stay blockers", "[e2e][links]") {
  TempDir dir;
  write_extension(dir, "import fused_scale\ndef scale(x, a):\n    return fused_scale.scale(x, a)\n");
  json report = scan(dir);
  CHECK(only_context(report, "csrc/scale.cu", "TPU101") != "guarded");
  CHECK(only_context(report, "setup.py", "TPU110") != "guarded");
}

namespace {

void write_jit_loader(const TempDir& dir, const std::string& condition) {
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/loader.py",
            "import os\n"
            "import torch.utils.cpp_extension\n"
            "def get_plugin(name, sources):\n"
            "    here = os.path.dirname(__file__)\n"
            "    return torch.utils.cpp_extension.load(name, sources=[os.path.join(here, 'ops', s) for s in sources])\n");
  dir.write("pkg/ops/__init__.py", "");
  dir.write("pkg/ops/scale.cu", kCudaKernel);
  dir.write("pkg/ops/scale.py",
            "import torch\n"
            "from .. import loader\n"
            "_plugin = None\n"
            "def _init():\n"
            "    global _plugin\n"
            "    _plugin = loader.get_plugin('scale_plugin', sources=['scale.cu'])\n"
            "    return True\n"
            "def scale(x, a):\n"
            "    if " + condition + ":\n"
            "        return _plugin.scale(x, a)\n"
            "    return x * a\n");
}

}  // namespace

TEST_CASE("links: a JIT-loaded plugin reached only behind a device guard: its sources and loader are guarded", "[e2e][links]") {
  TempDir dir;
  write_jit_loader(dir, "x.device.type == 'cuda' and _init()");
  json report = scan(dir);
  CHECK(contexts(report, "pkg/ops/scale.cu", "TPU101") == std::vector<std::string>{"guarded"});
  // The loader's function is called from one place, behind the guard, in another module.
  std::vector<std::string> load = contexts(report, "pkg/loader.py", "TPU110");
  REQUIRE_FALSE(load.empty());
  for (const std::string& c : load) CHECK(c == "guarded");
}

TEST_CASE("links: a JIT-loaded plugin reached without a guard stays a blocker", "[e2e][links]") {
  TempDir dir;
  write_jit_loader(dir, "_init()");
  json report = scan(dir);
  CHECK(only_context(report, "pkg/ops/scale.cu", "TPU101") != "guarded");
  std::vector<std::string> load = contexts(report, "pkg/loader.py", "TPU110");
  REQUIRE_FALSE(load.empty());
  for (const std::string& c : load) CHECK(c != "guarded");
}

TEST_CASE("links: an optional import whose handler binds no fallback does not make the module optional", "[e2e][links]") {
  // A library imports its framework halves where the framework is installed: each half is the
  // library itself for its users, not a path the library can run without.
  TempDir dir;
  dir.write("lib/__init__.py",
            "try:\n"
            "    from . import torch_half\n"
            "except ImportError:\n"
            "    pass\n");
  dir.write("lib/torch_half/__init__.py", "from .kernels import dtw_cuda\n");
  dir.write("lib/torch_half/kernels.py", kTritonKernels);
  CHECK(only_context(scan(dir), "lib/torch_half/kernels.py", "TPU111") != "guarded");
}

TEST_CASE("links: a module imported on the path a TPU takes is not optional, on the guarded path it is", "[e2e][links]") {
  // `if USE_TRITON_ROCM: <AMD kernels> else: import <CUDA extension>`: without the flag (on a TPU too)
  // the else runs; `if not torch.cuda.is_available(): <reference> else: <kernels>` guards the else.
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/kernels.py", kTritonKernels);
  dir.write("pkg/other_kernels.py", kTritonKernels);
  dir.write("pkg/attention.py",
            "import os\n"
            "import torch\n"
            "USE_TRITON_ROCM = os.getenv('USE_TRITON_ROCM') == '1'\n"
            "if USE_TRITON_ROCM:\n"
            "    from aiter import flash_attn as impl\n"
            "else:\n"
            "    from .kernels import dtw_cuda as impl\n"
            "if not torch.cuda.is_available():\n"
            "    reference = None\n"
            "else:\n"
            "    from .other_kernels import dtw_cuda as fast\n");
  json report = scan(dir);
  CHECK(only_context(report, "pkg/kernels.py", "TPU111") != "guarded");
  CHECK(only_context(report, "pkg/other_kernels.py", "TPU111") == "guarded");
}

TEST_CASE("links: an optional import whose fallback the code refuses (assert, raise) keeps the extension a blocker", "[e2e][links]") {
  TempDir dir;
  write_extension(dir,
                  "try:\n"
                  "    import fused_scale\n"
                  "except ImportError:\n"
                  "    fused_scale = None\n"
                  "def scale(x, a):\n"
                  "    if fused_scale is None:\n"
                  "        raise RuntimeError('reinstall with the CUDA build')\n"
                  "    return fused_scale.scale(x, a)\n");
  CHECK(only_context(scan(dir), "csrc/scale.cu", "TPU101") != "guarded");
}

namespace {

// Each finding of `path` whose check is `id`: its context, and "+discounted" when it is.
std::vector<std::string> placed(const json& report, const std::string& path, const std::string& id) {
  std::vector<std::string> out;
  for (const json& f : report.at("findings"))
    if (f.at("path") == path && f.at("id") == id)
      out.push_back(f.at("context").get<std::string>() + (f.at("discounted").get<bool>() ? "+discounted" : ""));
  return out;
}

// A helper with a dynamic-shape op (TPU201, a check about device code only) in a module of its
// own, and a Dataset in another module that calls it.
void write_host_helper(const TempDir& dir) {
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/boxes.py",
            "import torch\n"
            "def keep_valid(boxes):\n"
            "    return boxes[torch.nonzero(boxes[:, 2] > 0).squeeze(1)]\n");
  dir.write("pkg/data.py",
            "from torch.utils.data import Dataset\n"
            "from pkg.boxes import keep_valid\n"
            "class Boxes(Dataset):\n"
            "    def __getitem__(self, i):\n"
            "        return keep_valid(self.items[i])\n");
}

}  // namespace

TEST_CASE("links: a helper only another module's Dataset calls is host code", "[e2e][links]") {
  TempDir dir;
  write_host_helper(dir);
  CHECK(placed(scan(dir), "pkg/boxes.py", "TPU201") == std::vector<std::string>{"host+discounted"});
}

TEST_CASE("links: a helper a model's forward also calls, in a third module, stays device code", "[e2e][links]") {
  TempDir dir;
  write_host_helper(dir);
  dir.write("pkg/model.py",
            "import torch\n"
            "from pkg import boxes\n"
            "class Head(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return boxes.keep_valid(x)\n");
  CHECK(placed(scan(dir), "pkg/boxes.py", "TPU201") == std::vector<std::string>{"hot-path"});
}

TEST_CASE("links: a helper its own file calls from code of no role keeps its file's role", "[e2e][links]") {
  TempDir dir;
  write_host_helper(dir);
  dir.write("pkg/boxes.py",
            "import torch\n"
            "def keep_valid(boxes):\n"
            "    return boxes[torch.nonzero(boxes[:, 2] > 0).squeeze(1)]\n"
            "def clean(boxes):\n"
            "    return keep_valid(boxes)\n");
  CHECK(placed(scan(dir), "pkg/boxes.py", "TPU201") == std::vector<std::string>{"unknown"});
}

TEST_CASE("links: a dataset module's helper that another module's training loop also calls is device code",
          "[e2e][links]") {
  TempDir dir;
  // Its own file's Dataset calls it (host code there); the training loop calls it on the model's output.
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/meldataset.py",
            "import torch\n"
            "from torch.utils.data import Dataset\n"
            "def spectrogram(y):\n"
            "    return torch.stft(y, 1024, return_complex=True).abs()\n"
            "class Mels(Dataset):\n"
            "    def __getitem__(self, i):\n"
            "        return spectrogram(torch.zeros(8000))\n");
  CHECK(placed(scan(dir), "pkg/meldataset.py", "TPU301") == std::vector<std::string>{"host+discounted"});
  dir.write("pkg/train.py",
            "import torch\n"
            "from pkg.meldataset import spectrogram\n"
            "def fit(model, loader, opt):\n"
            "    for x, y in loader:\n"
            "        loss = (spectrogram(model(x)) - y).abs().mean()\n"
            "        loss.backward()\n"
            "        opt.step()\n");
  CHECK(placed(scan(dir), "pkg/meldataset.py", "TPU301") == std::vector<std::string>{"hot-path"});
  // An evaluation module's function a training loop calls (after each epoch) stays evaluation code.
  dir.write("pkg/val.py",
            "import torch\n"
            "def evaluate(model, loader):\n"
            "    for x, y in loader:\n"
            "        keep = y[y[:, 0] > 0]\n"
            "    return keep\n");
  dir.write("pkg/train.py",
            "import torch\n"
            "from pkg import val\n"
            "from pkg.meldataset import spectrogram\n"
            "def fit(model, loader, opt):\n"
            "    for epoch in range(3):\n"
            "        for x, y in loader:\n"
            "            loss = (spectrogram(model(x)) - y).abs().mean()\n"
            "            loss.backward()\n"
            "            opt.step()\n"
            "        val.evaluate(model, loader)\n");
  CHECK(placed(scan(dir), "pkg/val.py", "TPU204") == std::vector<std::string>{"eval+discounted"});
  CHECK(placed(scan(dir), "pkg/meldataset.py", "TPU301") == std::vector<std::string>{"hot-path"});
  // Called there from tests only, it stays the dataset's.
  dir.write("pkg/val.py", "");
  dir.write("pkg/train.py", "");
  dir.write("tests/test_mels.py",
            "from pkg.meldataset import spectrogram\n"
            "def test_fit(model, loader, opt):\n"
            "    for x, y in loader:\n"
            "        (spectrogram(model(x)) - y).abs().mean().backward()\n"
            "        opt.step()\n");
  CHECK(placed(scan(dir), "pkg/meldataset.py", "TPU301") == std::vector<std::string>{"host+discounted"});
}

TEST_CASE("links: roles pass along chains of helpers in different modules", "[e2e][links]") {
  TempDir dir;
  write_host_helper(dir);
  dir.write("pkg/ops.py",
            "from pkg.boxes import keep_valid\n"
            "def prepare(b):\n"
            "    return keep_valid(b) * 2\n");
  dir.write("pkg/data.py",
            "from torch.utils.data import Dataset\n"
            "from pkg.ops import prepare\n"
            "class Boxes(Dataset):\n"
            "    def __getitem__(self, i):\n"
            "        return prepare(self.items[i])\n");
  CHECK(placed(scan(dir), "pkg/boxes.py", "TPU201") == std::vector<std::string>{"host+discounted"});
}

TEST_CASE("links: a converter only another module's alternative constructor calls is one-time code, one forward calls is not",
          "[e2e][links]") {
  TempDir dir;
  dir.write("pkg/utils.py",
            "import torch\n"
            "def unpack_weights(w):\n"
            "    return w[torch.nonzero(w > 0).squeeze(1)]\n");
  dir.write("pkg/base.py",
            "from pkg.utils import unpack_weights\n"
            "class QuantModel:\n"
            "    @classmethod\n"
            "    def from_quantized(cls, w):\n"
            "        return unpack_weights(w)\n");
  CHECK(placed(scan(dir), "pkg/utils.py", "TPU201") == std::vector<std::string>{"one-time+discounted"});
  dir.write("pkg/layer.py",
            "import torch\n"
            "from pkg.utils import unpack_weights\n"
            "class QuantLinear(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return unpack_weights(x)\n");
  CHECK(placed(scan(dir), "pkg/utils.py", "TPU201") == std::vector<std::string>{"hot-path"});
}

TEST_CASE("links: a function handed to jax.jit in another module is the hot path", "[e2e][links]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/losses.py",
            "import jax.numpy as jnp\n"
            "def objective(params, x):\n"
            "    return jnp.nonzero(x)[0].sum()\n");
  dir.write("pkg/train.py",
            "import jax\n"
            "from pkg.losses import objective\n"
            "def main():\n"
            "    step = jax.jit(objective)\n"
            "    return step\n");
  CHECK(placed(scan(dir), "pkg/losses.py", "TPU210") == std::vector<std::string>{"hot-path"});
}

TEST_CASE("links: a check not reported on the hot path drops a finding another module's forward places there",
          "[e2e][links]") {
  // TPU207 (a tensor grown in a loop): a loop on the hot path is unrolled into one traced graph.
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/grow.py",
            "import torch\n"
            "def stack_features(x, blocks):\n"
            "    for blk in blocks:\n"
            "        x = torch.cat([x, blk(x)], dim=1)\n"
            "    return x\n");
  dir.write("pkg/model.py",
            "import torch\n"
            "from pkg.grow import stack_features\n"
            "class Dense(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return stack_features(x, self.blocks)\n");
  CHECK(placed(scan(dir), "pkg/grow.py", "TPU207").empty());
  // Near miss: called only from a sampling loop of no role, the same loop is reported.
  dir.write("pkg/model.py",
            "from pkg.grow import stack_features\n"
            "def sample(x, blocks):\n"
            "    return stack_features(x, blocks)\n");
  CHECK(placed(scan(dir), "pkg/grow.py", "TPU207") == std::vector<std::string>{"unknown"});
}

namespace {

// Writes each (path, text) under `dir`.
void write_files(const TempDir& dir, std::initializer_list<std::pair<const char*, std::string>> files) {
  for (const auto& [path, text] : files) dir.write(path, text);
}

}  // namespace

TEST_CASE("links: a function only tests use is test code, one core code also uses is not", "[e2e][links]") {
  TempDir dir;
  write_files(dir, {{"pkg/__init__.py", ""},
                    {"pkg/ops/__init__.py", ""},
                    {"pkg/ops/functions.py",
                     "import torch\n"
                     "def reference(x):\n"
                     "    return torch.nonzero(x)\n"
                     "def shared(x):\n"
                     "    return torch.unique(x)\n"},
                    {"pkg/ops/test.py",
                     "from pkg.ops.functions import reference, shared\n"
                     "def check(x):\n"
                     "    assert (reference(x) == shared(x)).all()\n"},
                    {"pkg/model.py",
                     "import torch\n"
                     "from pkg.ops.functions import shared\n"
                     "class Net(torch.nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        return shared(x)\n"}});
  // `reference` (line 3) only the test uses; `shared` (line 5) the model's forward too.
  CHECK(placed(scan(dir), "pkg/ops/functions.py", "TPU201") == std::vector<std::string>{"test", "hot-path"});
}

TEST_CASE("links: an alternative backend's modules beside the default implementation are guarded code", "[e2e][links]") {
  TempDir dir;
  const std::string kernels = "import torch\nimport triton\ndef gate(x):\n    return torch.nonzero(x)\n";
  // The Ascend NPU backend of pkg/ops, beside pkg/ops/gate.py, directly in its directory, or a
  // level down and named with a leading '_' (Liger-Kernel's `ops/backends/_ascend/ops/`), and a
  // cuTile one (`ops/cutile/ops/`); pkg/rocm has no namesake beside it: it is the only
  // implementation there is.
  write_files(dir, {{"pkg/__init__.py", ""}, {"pkg/ops/__init__.py", ""}, {"pkg/ops/gate.py", kernels},
                    {"pkg/ops/backends/__init__.py", ""}, {"pkg/ops/backends/npu/__init__.py", ""},
                    {"pkg/ops/backends/npu/gate.py", kernels}, {"pkg/ops/backends/npu/layout.py", kernels},
                    {"pkg/ops/backends/_ascend/ops/gate.py", kernels},
                    {"pkg/ops/backends/_ascend/ops/layout.py", kernels}, {"pkg/ops/cutile/ops/gate.py", kernels},
                    {"pkg/rocm/__init__.py", ""}, {"pkg/rocm/attention.py", kernels},
                    {"pkg/rocm/ops/attention_fwd.py", kernels}});
  json report = scan(dir);
  const std::vector<std::string> guarded{"guarded+discounted"}, imported_once{"one-time"};
  CHECK(placed(report, "pkg/ops/backends/npu/gate.py", "TPU501") == guarded);
  CHECK(placed(report, "pkg/ops/backends/npu/layout.py", "TPU201") == guarded);
  CHECK(placed(report, "pkg/ops/backends/_ascend/ops/gate.py", "TPU501") == guarded);
  CHECK(placed(report, "pkg/ops/backends/_ascend/ops/layout.py", "TPU201") == guarded);
  CHECK(placed(report, "pkg/ops/cutile/ops/gate.py", "TPU201") == guarded);
  CHECK(placed(report, "pkg/ops/gate.py", "TPU501") == imported_once);
  CHECK(placed(report, "pkg/rocm/attention.py", "TPU501") == imported_once);
  CHECK(placed(report, "pkg/rocm/ops/attention_fwd.py", "TPU501") == imported_once);
}

namespace {

// The context of the TPU401 finding (`model.cuda()`) of a port module, `imports` its imports; the
// merged shards of the scan give its report.
std::string port_context(TempDir& dir, const std::string& path, const std::string& imports) {
  dir.write(path, imports + "def load(model):\n    return model.cuda()\n");
  const std::string report = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out;
  CHECK(merged_shards(dir, 3) == report);
  return only_context(json::parse(report), path, "TPU401");
}

}  // namespace

TEST_CASE("links: the PyTorch modules of a project of JAX modules are a side implementation, guarded", "[e2e][links][shard]") {
  TempDir dir;
  const std::string jax_module = "import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.tanh(x)\n";
  dir.write("model/a.py", jax_module);
  dir.write("model/b.py", jax_module);
  CHECK(port_context(dir, "hf/port.py", "import torch\n") == "guarded");
  // A module that uses both is no side implementation.
  CHECK(port_context(dir, "hf/port.py", "import jax\nimport torch\n") != "guarded");
  // Fewer than two JAX modules for each PyTorch one: PyTorch is the project's own.
  dir.write("hf/other.py", "import torch\ndef g(x):\n    return x + 1\n");
  CHECK(port_context(dir, "hf/port.py", "import torch\n") != "guarded");
}

TEST_CASE("links: a PyTorch module that reads its data with TensorFlow is a side implementation of a TF project",
          "[e2e][links][shard]") {
  TempDir dir;
  // T5's layout: TensorFlow modules, and a PyTorch port whose inputs come from tf.data.
  const std::string tf_module = "import tensorflow.compat.v1 as tf\ndef f(x):\n    return tf.tanh(x)\n";
  dir.write("t5/models/mtf_model.py", tf_module);
  dir.write("t5/data/preprocessors.py", tf_module);
  const std::string port_imports = "import tensorflow.compat.v1 as tf\nimport torch\n";
  CHECK(port_context(dir, "t5/models/hf_model.py", port_imports) == "guarded");
  // A PyTorch project whose modules log or read data with TensorFlow: PyTorch is its own, whatever
  // else its modules import.
  dir.write("t5/models/mtf_model.py", "import tensorflow as tf\nimport torch\ndef f(x):\n    return torch.tanh(x)\n");
  dir.write("t5/data/preprocessors.py", "import tensorflow as tf\nimport torch\ndef g(x):\n    return x\n");
  dir.write("t5/data/tasks.py", tf_module);
  CHECK(port_context(dir, "t5/models/hf_model.py", port_imports) != "guarded");
}

TEST_CASE("links: each shard links the whole project, merged shards are the whole scan", "[e2e][links][shard]") {
  TempDir dir;
  write_host_helper(dir);
  write_guarded_user(dir);
  for (int k = 0; k < 6; ++k) dir.write("pkg/m" + std::to_string(k) + ".py", "import torch\nx = torch.ones(2).cuda()\n");
  const std::string whole = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out;
  const std::string merged = merged_shards(dir, 4);
  CHECK(merged == whole);
  CHECK(placed(json::parse(merged), "pkg/boxes.py", "TPU201") == std::vector<std::string>{"host+discounted"});
}

TEST_CASE("links: a backend module imported only when an off-by-default option is on is guarded code", "[e2e][links]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/trt_engine.py", "import torch\ndef engine_of(model):\n    return model.cuda()\n");
  dir.write("pkg/cli.py",
            "def main(model, trt=False):\n"
            "    if trt:\n"
            "        from pkg.trt_engine import engine_of\n"
            "        return engine_of(model)\n"
            "    return model\n");
  CHECK(placed(scan(dir), "pkg/trt_engine.py", "TPU401") == std::vector<std::string>{"guarded+discounted"});
  // On by default: the backend is what runs.
  dir.write("pkg/cli.py",
            "def main(model, trt=True):\n"
            "    if trt:\n"
            "        from pkg.trt_engine import engine_of\n"
            "        return engine_of(model)\n"
            "    return model\n");
  CHECK(placed(scan(dir), "pkg/trt_engine.py", "TPU401") == std::vector<std::string>{"unknown"});
}

// Launches of kernels another module defines (TPU112 through the project links): each way a
// launching module reaches the kernel's name, each near miss that is not a launch of one of the
// project's kernels, and the results of shards and of the cache.
namespace {

// "path:line subject context" of each TPU112 finding, in report order.
std::vector<std::string> launches(const json& report) {
  std::vector<std::string> out;
  for (const json& f : report.at("findings"))
    if (f.at("id") == "TPU112")
      out.push_back(f.at("path").get<std::string>() + ":" + std::to_string(f.at("line").get<int>()) + " " +
                    f.at("subject").get<std::string>() + " " + f.at("context").get<std::string>());
  return out;
}

const std::string kTritonKernel =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def add_kernel(x, y, out, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(out + offs, tl.load(x + offs) + tl.load(y + offs), mask=offs < n)\n";

// A package with a module of one Triton kernel, `pkg.kernels.add_kernel`.
void write_kernel_package(const TempDir& dir) {
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/kernels.py", kTritonKernel);
}

// A module that launches `kernel` as its import statement `imports` names it.
std::string launcher(const std::string& imports, const std::string& kernel) {
  return imports +
         "\n"
         "def add(x, y, out, n):\n"
         "    " + kernel + "[(n // 1024,)](x, y, out, n, BLOCK=1024)\n"
         "    return out\n";
}

}  // namespace

TEST_CASE("kernel launches: a Triton kernel imported from another module is launched there", "[e2e][links][launch]") {
  TempDir dir;
  write_kernel_package(dir);
  dir.write("pkg/ops.py", launcher("from pkg.kernels import add_kernel", "add_kernel"));
  json report = scan(dir);
  CHECK(launches(report) == std::vector<std::string>{"pkg/ops.py:3 add_kernel unknown"});
  for (const json& f : report.at("findings"))
    if (f.at("id") == "TPU112") {
      CHECK(f.at("severity") == "error");
      CHECK(f.at("message") == "launch of the kernel 'add_kernel' defined in 'pkg.kernels'");
    }
  // The launch is part of its kernel's work item: one item, priced once.
  size_t items = 0;
  for (const json& w : report.at("work_items"))
    if (w.at("subject") == "add_kernel") {
      ++items;
      CHECK(w.at("checks") == json::array({"TPU111", "TPU112"}));
    }
  CHECK(items == 1);
}

TEST_CASE("kernel launches: through a module alias and relative imports, in a src/ layout too", "[e2e][links][launch]") {
  for (const std::string root : {"", "src/"}) {
    TempDir dir;
    dir.write(root + "pkg/__init__.py", "");
    dir.write(root + "pkg/kernels.py", kTritonKernel);
    dir.write(root + "pkg/ops.py", launcher("from . import kernels as K", "K.add_kernel"));
    dir.write(root + "pkg/sub/__init__.py", "");
    dir.write(root + "pkg/sub/run.py", launcher("from ..kernels import add_kernel as add", "add"));
    CHECK(launches(scan(dir)) ==
          std::vector<std::string>{root + "pkg/ops.py:3 add_kernel unknown", root + "pkg/sub/run.py:3 add_kernel unknown"});
  }
}

TEST_CASE("kernel launches: a kernel a package's __init__ re-exports", "[e2e][links][launch]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/ops/__init__.py", "from .cross_entropy import add_kernel\n");
  dir.write("pkg/ops/cross_entropy.py", kTritonKernel);
  dir.write("pkg/loss.py", launcher("from pkg.ops import add_kernel", "add_kernel"));
  CHECK(launches(scan(dir)) == std::vector<std::string>{"pkg/loss.py:3 add_kernel unknown"});
}

TEST_CASE("kernel launches: a Numba CUDA kernel, and a local alias of an imported kernel", "[e2e][links][launch]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/nb.py",
            "from numba import cuda\n"
            "@cuda.jit\n"
            "def scale(a, s):\n"
            "    i = cuda.grid(1)\n"
            "    if i < a.size:\n"
            "        a[i] *= s\n");
  dir.write("pkg/run.py",
            "from pkg import nb\n"
            "def run(a):\n"
            "    kernel = nb.scale\n"
            "    kernel[32, 128](a, 2.0)\n");
  CHECK(launches(scan(dir)) == std::vector<std::string>{"pkg/run.py:4 scale unknown"});
}

TEST_CASE("kernel launches: a same-named function that is no kernel, a third-party kernel and a Pallas kernel are not",
          "[e2e][links][launch]") {
  TempDir dir;
  write_kernel_package(dir);
  // The same name, a plain function: `table[key](x)` looks like a launch.
  dir.write("pkg/registry.py", "def add_kernel(key):\n    return {}\n");
  dir.write("pkg/a.py", launcher("from pkg.registry import add_kernel", "add_kernel"));
  // A kernel of an installed package, not the project's.
  dir.write("pkg/b.py", launcher("from liger_kernel.ops.cross_entropy import liger_cross_entropy_kernel",
                                 "liger_cross_entropy_kernel"));
  // A Pallas kernel from another module: the TPU's own kernel language.
  dir.write("pkg/pallas_kernels.py", "def add_kernel(x_ref, y_ref, o_ref):\n    o_ref[...] = x_ref[...] + y_ref[...]\n");
  dir.write("pkg/c.py",
            "import jax\n"
            "from jax.experimental import pallas as pl\n"
            "from pkg.pallas_kernels import add_kernel\n"
            "def add(x, y):\n"
            "    return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x, y)\n");
  // And the one launch of the project's kernel.
  dir.write("pkg/d.py", launcher("from pkg.kernels import add_kernel", "add_kernel"));
  json report = scan(dir);
  CHECK(launches(report) == std::vector<std::string>{"pkg/d.py:3 add_kernel unknown"});
  for (const json& f : report.at("findings")) CHECK(f.at("path") != "pkg/c.py");
}

TEST_CASE("kernel launches: a launch takes the context of its code, a guard's included", "[e2e][links][launch]") {
  TempDir dir;
  write_kernel_package(dir);
  dir.write("pkg/ops.py",
            "import torch\n"
            "from pkg.kernels import add_kernel\n"
            "class Add(torch.nn.Module):\n"
            "    def forward(self, x, y):\n"
            "        out = torch.empty_like(x)\n"
            "        add_kernel[(1,)](x, y, out, x.numel(), BLOCK=1024)\n"
            "        return out\n"
            "def add(x, y, out):\n"
            "    if x.is_cuda:\n"
            "        add_kernel[(1,)](x, y, out, x.numel(), BLOCK=1024)\n"
            "        return out\n"
            "    return x + y\n");
  CHECK(launches(scan(dir)) ==
        std::vector<std::string>{"pkg/ops.py:6 add_kernel hot-path", "pkg/ops.py:10 add_kernel guarded"});
}

TEST_CASE("kernel launches: a suppression on the launch's line holds and is used", "[e2e][links][launch]") {
  TempDir dir;
  write_kernel_package(dir);
  dir.write("pkg/ops.py",
            "from pkg.kernels import add_kernel\n"
            "def add(x, y, out, n):\n"
            "    add_kernel[(1,)](x, y, out, n, BLOCK=1024)  # tpulint: ignore[TPU112]\n"
            "    add_kernel[(2,)](x, y, out, n, BLOCK=1024)\n");
  json report = scan(dir);
  CHECK(launches(report) == std::vector<std::string>{"pkg/ops.py:4 add_kernel unknown"});
  for (const json& f : report.at("findings")) CHECK(f.at("id") != "TPU904");
}

TEST_CASE("kernel launches: merged shards are the whole scan when the launch and its kernel are in different shards",
          "[e2e][links][launch][shard]") {
  TempDir dir;
  write_kernel_package(dir);
  dir.write("pkg/ops.py", launcher("from pkg.kernels import add_kernel", "add_kernel"));
  for (int k = 0; k < 4; ++k) dir.write("pkg/m" + std::to_string(k) + ".py", "import torch\nx = torch.ones(2).cuda()\n");
  const std::string whole = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out;
  REQUIRE(launches(json::parse(whole)) == std::vector<std::string>{"pkg/ops.py:3 add_kernel unknown"});
  bool apart = false;
  for (unsigned n : {2u, 3u, 4u}) {
    for (unsigned k = 1; k <= n; ++k)
      apart |= tpulint::app::in_shard("pkg/ops.py", k, n) && !tpulint::app::in_shard("pkg/kernels.py", k, n);
    CHECK(merged_shards(dir, n) == whole);
  }
  CHECK(apart);  // the test sees a launch whose kernel another shard reports
}

TEST_CASE("kernel launches: a cached launching file follows its kernel's module", "[e2e][links][launch][cache]") {
  TempDir dir, cache;
  write_kernel_package(dir);
  dir.write("pkg/ops.py", launcher("from pkg.kernels import add_kernel", "add_kernel"));
  const std::string cached = "--cache-dir '" + cache.str() + "'";
  CHECK(launches(scan(dir, cached)) == std::vector<std::string>{"pkg/ops.py:3 add_kernel unknown"});
  CHECK(launches(scan(dir, cached)) == std::vector<std::string>{"pkg/ops.py:3 add_kernel unknown"});
  // No longer a kernel: the launching file's result comes from the cache, its launch does not.
  dir.write("pkg/kernels.py", "def add_kernel(x, y, out, n, BLOCK):\n    return x + y\n");
  CHECK(launches(scan(dir, cached)).empty());
  dir.write("pkg/kernels.py", kTritonKernel);
  CHECK(launches(scan(dir, cached)) == std::vector<std::string>{"pkg/ops.py:3 add_kernel unknown"});
}

TEST_CASE("links: what only an off-by-default model option runs is discounted unless a file of the project turns it on",
          "[e2e][links]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/diffusion.py",
            "import torch\n"
            "from scipy.optimize import linear_sum_assignment\n"
            "class Diffusion(torch.nn.Module):\n"
            "    def __init__(self, net, immiscible=False):\n"
            "        self.immiscible = immiscible\n"
            "    def assign(self, x):\n"
            "        return linear_sum_assignment(x.cpu())\n"
            "    def forward(self, x):\n"
            "        if self.immiscible:\n"
            "            x = x[self.assign(x)]\n"
            "        return x\n");
  auto host_library = [&](const json& report) {
    std::vector<json> found;
    for (const json& f : report.at("findings"))
      if (f.at("path") == "pkg/diffusion.py" && f.at("id") == "TPU611") found.push_back(f);
    REQUIRE(found.size() == 1);
    CHECK(found[0].at("context") == "hot-path");  // where it runs, when it runs
    return found[0];
  };
  json off = host_library(scan(dir));
  CHECK(off.at("discounted") == true);
  CHECK(off.at("severity") == "info");
  CHECK_THAT(off.at("message").get<std::string>(),
             Catch::Matchers::EndsWith("(only with the off-by-default option 'immiscible')"));
  // A script passing False keeps it off.
  dir.write("train.py", "from pkg.diffusion import Diffusion\nmodel = Diffusion(None, immiscible=False)\n");
  CHECK(host_library(scan(dir)).at("discounted") == true);
  // A script passing what its user decides may turn it on: the code is what a port runs.
  dir.write("train.py",
            "import argparse\n"
            "from pkg.diffusion import Diffusion\n"
            "args = argparse.ArgumentParser().parse_args()\n"
            "model = Diffusion(None, immiscible=args.immiscible)\n");
  json on = host_library(scan(dir));
  CHECK(on.at("discounted") == false);
  CHECK(on.at("severity") != "info");
  CHECK(on.at("message").get<std::string>().find("off-by-default") == std::string::npos);
  // The same with the result cache: the option's file is unchanged, the other file decides.
  TempDir cache;
  const std::string cached = "--cache-dir '" + cache.str() + "'";
  dir.write("train.py", "from pkg.diffusion import Diffusion\nmodel = Diffusion(None)\n");
  CHECK(host_library(scan(dir, cached)).at("discounted") == true);
  dir.write("train.py", "from pkg.diffusion import Diffusion\nmodel = Diffusion(None, immiscible=True)\n");
  CHECK(host_library(scan(dir, cached)).at("discounted") == false);
}

namespace {

// An extension 'fused_rows' built from csrc/rows.cu, which includes csrc/kernels.cuh, which includes
// csrc/detail/inner.cuh: each header holds a kernel.
void write_header_extension(const TempDir& dir) {
  dir.write("setup.py",
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('fused_rows', sources=['csrc/rows.cu'])],\n"
            "      cmdclass={'build_ext': BuildExtension})\n");
  dir.write("csrc/rows.cu",
            "#include \"kernels.cuh\"\n"
            "void rows(float* out, const float* in, const int* idx, int n) {\n"
            "  mix_rows_kernel<<<(n + 255) / 256, 256>>>(out, in, idx, n);\n"
            "}\n");
  dir.write("csrc/kernels.cuh",
            "#pragma once\n"
            "#include \"detail/inner.cuh\"\n"
            "__global__ void mix_rows_kernel(float* out, const float* in, const int* idx, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  for (int k = 0; k < 4 && i < n; ++k) out[i] += in[idx[(i + k) % n]] * in[(i * k) % n];\n"
            "}\n");
  dir.write("csrc/detail/inner.cuh",
            "#pragma once\n"
            "__global__ void shuffle_rows_kernel(float* out, const float* in, const int* idx, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  for (int k = 0; k < 4 && i < n; ++k) out[(i * k) % n] += in[idx[i]] * in[(i + k) % n];\n"
            "}\n");
}

}  // namespace

TEST_CASE("plan: the kernels of a header an extension's sources include are the extension's work, in any shard",
          "[e2e][links][shard]") {
  TempDir dir;
  write_header_extension(dir);
  dir.write("csrc/unused.cuh",
            "#pragma once\n"
            "__global__ void orphan_rows_kernel(float* out, const float* in, const int* idx, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  for (int k = 0; k < 4 && i < n; ++k) out[(i + k) % n] -= in[idx[i]] * in[(i * k) % n];\n"
            "}\n");
  dir.write("pkg/__init__.py", "import fused_rows\n");
  const std::string whole = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out;
  const json report = json::parse(whole);
  // The build's finding lists the sources and the headers they reach; the plan's item of the
  // extension holds the kernels of both headers; a header no source includes stays an item of its own.
  std::vector<std::string> related;
  for (const json& f : report.at("findings"))
    if (f.at("path") == "setup.py" && !f.at("related_paths").empty()) related = f.at("related_paths");
  CHECK(related == std::vector<std::string>{"csrc/detail/inner.cuh", "csrc/kernels.cuh", "csrc/rows.cu"});
  std::map<std::string, std::string> item_of_kernel;  // a kernel's file -> the subject of the item holding it
  for (const json& w : report.at("work_items"))
    for (const char* file : {"csrc/kernels.cuh", "csrc/detail/inner.cuh", "csrc/unused.cuh"})
      if (w.at("first_location").get<std::string>().starts_with(std::string(file) + ":")) item_of_kernel[file] = w.at("subject");
  CHECK(item_of_kernel.count("csrc/kernels.cuh") == 0);
  CHECK(item_of_kernel.count("csrc/detail/inner.cuh") == 0);
  CHECK(item_of_kernel.count("csrc/unused.cuh") == 1);
  bool extension_item = false;
  for (const json& w : report.at("work_items"))
    if (w.at("subject") == "fused_rows") {
      extension_item = true;
      const std::vector<std::string> parts = w.at("parts");
      CHECK(parts.size() >= 2);
    }
  CHECK(extension_item);
  std::map<std::string, std::vector<std::string>> includes;
  for (const json& r : report.at("files").at("results"))
    if (r.contains("includes")) includes[r.at("path")] = r.at("includes");
  CHECK(includes == std::map<std::string, std::vector<std::string>>{{"csrc/kernels.cuh", {"csrc/detail/inner.cuh"}},
                                                                    {"csrc/rows.cu", {"csrc/kernels.cuh"}}});
  CHECK(merged_shards(dir, 3) == whole);
}

TEST_CASE("links: the headers only an optional extension's sources include are guarded too, in any shard",
          "[e2e][links][shard]") {
  TempDir dir;
  write_header_extension(dir);
  // A header an unguarded source includes too stays a blocker.
  dir.write("csrc/shared.cuh",
            "#pragma once\n"
            "__global__ void shared_rows_kernel(float* out, const float* in, const int* idx, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  for (int k = 0; k < 4 && i < n; ++k) out[(i + k) % n] -= in[idx[i]] * in[(i * k) % n];\n"
            "}\n");
  dir.write("csrc/other.cu",
            "#include \"shared.cuh\"\n"
            "void other(float* out, const float* in, const int* idx, int n) {\n"
            "  shared_rows_kernel<<<(n + 255) / 256, 256>>>(out, in, idx, n);\n"
            "}\n");
  dir.write("csrc/rows_too.cu", "#include \"shared.cuh\"\n");
  dir.write("pkg/__init__.py",
            "import torch\n"
            "try:\n"
            "    import fused_rows\n"
            "except ImportError:\n"
            "    fused_rows = None\n"
            "def rows(x, idx):\n"
            "    if fused_rows is not None and x.is_cuda:\n"
            "        return fused_rows.rows(x, idx)\n"
            "    return x[idx]\n");
  const std::string whole = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out;
  const json report = json::parse(whole);
  CHECK(contexts(report, "csrc/rows.cu", "TPU102") == std::vector<std::string>{"guarded"});
  CHECK(contexts(report, "csrc/kernels.cuh", "TPU101") == std::vector<std::string>{"guarded"});
  CHECK(contexts(report, "csrc/detail/inner.cuh", "TPU101") == std::vector<std::string>{"guarded"});
  CHECK(contexts(report, "csrc/shared.cuh", "TPU101") != std::vector<std::string>{"guarded"});
  CHECK(contexts(report, "csrc/shared.cuh", "TPU101").size() == 1);
  CHECK(merged_shards(dir, 3) == whole);
}

namespace {

// The sources setup.py's extension finding relates to.
std::vector<std::string> related(const json& report) {
  std::vector<std::string> out;
  for (const json& f : report.at("findings"))
    if (f.at("path") == "setup.py" && !f.at("related_paths").empty()) out = f.at("related_paths");
  return out;
}

// The files where the report's work items begin.
std::set<std::string> item_files(const json& report) {
  std::set<std::string> out;
  for (const json& w : report.at("work_items")) {
    const std::string at = w.at("first_location");
    out.insert(at.substr(0, at.find(':')));
  }
  return out;
}

}  // namespace

TEST_CASE("plan: setup.py's sources named by glob.glob are the tree's files that match, cached or not", "[e2e][links]") {
  TempDir dir, cache;
  dir.write("setup.py",
            "import glob\n"
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
            "op_files = glob.glob('./pkg/csrc/cuda/*.cu') + glob.glob('./pkg/csrc/*.cpp')\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('pkg._ext', sources=op_files)],\n"
            "      cmdclass={'build_ext': BuildExtension})\n");
  dir.write("pkg/__init__.py", "from . import _ext\n");
  dir.write("pkg/csrc/ops.cpp", "int ops() { return 0; }\n");
  dir.write("pkg/csrc/cuda/a.cu", kCudaKernel);
  dir.write("pkg/csrc/cuda/notes.txt", "not a source\n");
  dir.write("pkg/csrc/cuda/deeper/b.cu", kCudaKernel);  // glob.glob without recursive: not matched
  const std::string scan_cached = "scan '" + dir.str() + "' --cache-dir '" + cache.str() + "' --format json --exit-zero";
  CHECK(related(json::parse(run_tpulint(scan_cached).out)) ==
        std::vector<std::string>{"pkg/csrc/cuda/a.cu", "pkg/csrc/ops.cpp"});
  // A new source the glob matches joins the extension on the next run, though setup.py is unchanged.
  dir.write("pkg/csrc/cuda/c.cu", kCudaKernel);
  const json again = json::parse(run_tpulint(scan_cached).out);
  CHECK(related(again) == std::vector<std::string>{"pkg/csrc/cuda/a.cu", "pkg/csrc/cuda/c.cu", "pkg/csrc/ops.cpp"});
  // Their kernels are the extension's work, not items of their own; the unmatched one's is.
  const std::set<std::string> own_items = item_files(again);
  CHECK(own_items.count("pkg/csrc/cuda/a.cu") == 0);
  CHECK(own_items.count("pkg/csrc/cuda/c.cu") == 0);
  CHECK(own_items.count("pkg/csrc/cuda/deeper/b.cu") == 1);
  // A pattern through a symlink out of the tree, or above the build file's directory, lists nothing.
  TempDir outside;
  outside.write("stolen.cu", kCudaKernel);
  dir.symlink(outside.path(), "pkg/csrc/linked", true);
  dir.write("setup.py",
            "import glob\n"
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
            "op_files = glob.glob('./pkg/csrc/linked/*.cu') + glob.glob('../*.cu') + glob.glob('./pkg/csrc/*.cpp')\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('pkg._ext', sources=op_files)],\n"
            "      cmdclass={'build_ext': BuildExtension})\n");
  CHECK(related(json::parse(run_tpulint(scan_cached).out)) == std::vector<std::string>{"pkg/csrc/ops.cpp"});
}

TEST_CASE("plan: setup.py's sources built from variables, os.path.join and glob.glob are the tree's files", "[e2e][links]") {
  TempDir dir;
  // detectron2's shape: paths joined from the build file's directory, a `**` pattern, a list
  // grown with `+` and, under a condition, with `+=`.
  dir.write("setup.py",
            "import glob\n"
            "import os\n"
            "from os import path\n"
            "import torch\n"
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension, CppExtension, BuildExtension\n"
            "def get_extensions():\n"
            "    this_dir = path.dirname(path.abspath(__file__))\n"
            "    extensions_dir = path.join(this_dir, 'pkg', 'csrc')\n"
            "    main_source = path.join(extensions_dir, 'vision.cpp')\n"
            "    sources = glob.glob(path.join(extensions_dir, '**', '*.cpp'))\n"
            "    source_cuda = glob.glob(path.join(extensions_dir, '**', '*.cu')) + glob.glob(\n"
            "        path.join(extensions_dir, '*.cu'))\n"
            "    sources = [main_source] + sources\n"
            "    extension = CppExtension\n"
            "    if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':\n"
            "        extension = CUDAExtension\n"
            "        sources += source_cuda\n"
            "    return [extension('pkg._C', sources)]\n"
            "setup(name='pkg', ext_modules=get_extensions(), cmdclass={'build_ext': BuildExtension})\n");
  dir.write("pkg/__init__.py", "from . import _C\n");
  dir.write("pkg/csrc/vision.cpp", "int vision() { return 0; }\n");
  dir.write("pkg/csrc/top.cu", kCudaKernel);
  dir.write("pkg/csrc/nms/nms_cuda.cu", kCudaKernel);
  dir.write("pkg/csrc/nms/nms_cpu.cpp", "int nms() { return 0; }\n");
  dir.write("other/elsewhere.cu", kCudaKernel);  // not under the extension's directory
  const json report = json::parse(run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out);
  CHECK(related(report) == std::vector<std::string>{"pkg/csrc/nms/nms_cpu.cpp", "pkg/csrc/nms/nms_cuda.cu",
                                                    "pkg/csrc/top.cu", "pkg/csrc/vision.cpp"});
  const std::set<std::string> own_items = item_files(report);
  CHECK(own_items.count("pkg/csrc/nms/nms_cuda.cu") == 0);
  CHECK(own_items.count("other/elsewhere.cu") == 1);

  // What cannot be evaluated from literals lists nothing, nor does a path above the build file's
  // directory (which `up` is, not the root's own .cu); a name assigned twice is not followed.
  dir.write("root_level.cu", kCudaKernel);
  dir.write("setup.py",
            "import glob\n"
            "import os\n"
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension\n"
            "up = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n"
            "root = os.getenv('SRC_ROOT')\n"
            "loop = os.path.join('pkg', 'csrc')\n"
            "loop = os.path.join(loop, 'nms')\n"
            "sources = glob.glob(os.path.join(up, '*.cu')) + glob.glob(os.path.join(root, '*.cu'))\n"
            "sources += glob.glob(os.path.join(loop, '*.cu')) + [f'{root}/x.cu']\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('pkg._C', sources)])\n");
  CHECK(related(json::parse(run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out)).empty());
}

namespace {

// A model zoo: three modules of models in one package directory, each one's model alone; `a` has an op
// with no lowering (torch.fft.fft2), `b` a cheaper one (torch.bucketize), `c` none.
void write_model_zoo(const TempDir& dir) {
  dir.write("zoo/__init__.py", "from .a import A\nfrom .b import B\nfrom .c import C\n");
  dir.write("zoo/a.py",
            "import torch\nfrom torch import nn\n"
            "class A(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return torch.fft.fft2(x).real\n");
  dir.write("zoo/b.py",
            "import torch\nfrom torch import nn\n"
            "class B(nn.Module):\n"
            "    def forward(self, x, edges):\n"
            "        return torch.bucketize(x, edges)\n");
  dir.write("zoo/c.py",
            "import torch\nfrom torch import nn\n"
            "class C(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x * 2\n");
}

// The work item of `subject`: its hours.
std::pair<double, double> item_hours(const json& report, const std::string& subject) {
  for (const json& w : report.at("work_items"))
    if (w.at("subject") == subject) return {w.at("hours_low").get<double>(), w.at("hours_high").get<double>()};
  FAIL("no work item " << subject);
  return {};
}

}  // namespace

TEST_CASE("links: a model zoo's variants are alternatives: none priced low, the costliest priced high", "[e2e][links][zoo]") {
  TempDir dir;
  write_model_zoo(dir);
  const json report = scan(dir);
  CHECK(item_hours(report, "torch.fft.fft2") == std::pair<double, double>{0, 16});
  CHECK(item_hours(report, "torch.bucketize") == std::pair<double, double>{0, 0});
  // The effort is the bring-up run and, at most, the costliest variant's work.
  CHECK(report.at("core_effort").at("hours_low") == 2);
  CHECK(report.at("core_effort").at("hours_high") == 22);
  CHECK(report.at("verdict") == "tpu-ready");
  // Merged shards price them as the whole scan does.
  CHECK(merged_shards(dir, 3) == run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out);
}

TEST_CASE("links: a variant the project's own code uses, directly or through the package, is priced whole", "[e2e][links][zoo]") {
  for (const std::string import : {"from zoo.b import B\n", "from zoo import B\n"}) {
    TempDir dir;
    write_model_zoo(dir);
    dir.write("train.py", import + "model = B()\n");
    const json report = scan(dir);
    INFO(import);
    CHECK(item_hours(report, "torch.bucketize") == std::pair<double, double>{1, 4});
    // The two left are under a zoo's size: each is priced whole.
    CHECK(item_hours(report, "torch.fft.fft2") == std::pair<double, double>{4, 16});
  }
  // A use from tests does not count.
  TempDir dir;
  write_model_zoo(dir);
  dir.write("tests/test_b.py", "from zoo.b import B\ndef test_b():\n    B()\n");
  CHECK(item_hours(scan(dir), "torch.bucketize") == std::pair<double, double>{0, 0});
}

TEST_CASE("links: a model module's __main__ block in a package is its smoke test, a script's is its entry point",
          "[e2e][links][self-test]") {
  const std::string net =
      "import torch\nfrom torch import nn\n"
      "class Net(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x * 2\n"
      "if __name__ == '__main__':\n"
      "    net = Net().cuda()\n"
      "    print(net(torch.randn(2, 3).cuda()))\n";
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/net.py", net);
  dir.write("net.py", net);
  const json report = scan(dir);
  for (const std::string& c : contexts(report, "pkg/net.py", "TPU401")) CHECK(c == "test");
  CHECK(contexts(report, "pkg/net.py", "TPU401").size() == 2);
  for (const std::string& c : contexts(report, "net.py", "TPU401")) CHECK(c == "one-time");
  // Test code weighs as tests do: only the script's lines are core effort.
  TempDir script_only;
  script_only.write("net.py", net);
  const json alone = scan(script_only).at("core_effort"), both = report.at("core_effort");
  CHECK(alone.at("hours_low") == both.at("hours_low"));
  CHECK(alone.at("hours_high") == both.at("hours_high"));
  CHECK(both.at("code_lines").get<double>() > alone.at("code_lines").get<double>());

  // A module another module imports is a library module, in a package or not, a model or an op:
  // its main block is its smoke test. One only tests import is not.
  const std::string op =
      "import torch\n"
      "def scale(x):\n"
      "    return x * 2\n"
      "if __name__ == '__main__':\n"
      "    print(scale(torch.ones(3).cuda()))\n";
  TempDir scripts;
  scripts.write("models/scale_op.py", op);
  scripts.write("models/net.py", "from scale_op import scale\ndef forward(x):\n    return scale(x)\n");
  scripts.write("tools/other_op.py", op);
  scripts.write("tests/test_other.py", "from other_op import scale\ndef test_scale():\n    scale(1)\n");
  const json library = scan(scripts);
  CHECK(contexts(library, "models/scale_op.py", "TPU401") == std::vector<std::string>{"test"});
  CHECK(contexts(library, "tools/other_op.py", "TPU401") == std::vector<std::string>{"one-time"});

  // A script another module imports, whose main block reads the command line: its entry point.
  TempDir generate;
  generate.write("generate.py",
                 "import argparse\nimport torch\n"
                 "def sample(model):\n    return model\n"
                 "if __name__ == '__main__':\n"
                 "    parser = argparse.ArgumentParser()\n"
                 "    parser.add_argument('--device', default='cuda')\n"
                 "    args = parser.parse_args()\n"
                 "    x = torch.ones(3).cuda()\n");
  generate.write("eval.py", "from generate import sample\ndef run(m):\n    return sample(m)\n");
  CHECK(contexts(scan(generate), "generate.py", "TPU401") == std::vector<std::string>{"one-time", "one-time"});
}

namespace {

// A setup.py building the CUDA extension 'fused_scale' from csrc/scale.cu.
void write_scale_extension_build(const TempDir& dir) {
  dir.write("setup.py",
            "from setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
            "setup(name='pkg', ext_modules=[CUDAExtension('fused_scale', sources=['csrc/scale.cu'])],\n"
            "      cmdclass={'build_ext': BuildExtension})\n");
}

}  // namespace

TEST_CASE("links: an extension whose kernels all have a known path is a swap: its build takes their class",
          "[e2e][links][extension-build]") {
  auto build_effort = [](const std::string& kernel) {
    TempDir dir;
    write_scale_extension_build(dir);
    dir.write("csrc/scale.cu", kernel);
    const json report = scan(dir);
    json build;
    for (const json& f : report.at("findings"))
      if (f.at("id") == "TPU110") build = f.at("effort");
    REQUIRE(build.is_object());
    return build;
  };
  const std::string elementwise =
      "__global__ void scale_kernel(float* out, const float* in, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = in[i] * a;\n"
      "}\n"
      "void scale(float* out, const float* in, float a, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(out, in, a, n); }\n";
  const json swap = build_effort(elementwise);
  CHECK(swap.at("class") == "low");
  CHECK(swap.at("hours_high").get<double>() <= 2);
  // A kernel with no known path: the bindings of a rewrite.
  const json rewrite = build_effort(kCudaKernel);
  CHECK(rewrite.at("class") == "high");
  CHECK(rewrite.at("hours_low").get<double>() >= 8);
}

TEST_CASE("links: an extension's kernels in a header its sources include settle its build, as merged shards do",
          "[e2e][links][extension-build][shard]") {
  TempDir dir;
  write_scale_extension_build(dir);
  dir.write("csrc/scale.cu",
            "#include \"scale_kernel.cuh\"\n"
            "void scale(float* out, const float* in, float a, int n) { scale_kernel<<<(n + 255) / 256, 256>>>(out, in, a, n); }\n");
  dir.write("csrc/scale_kernel.cuh",
            "#pragma once\n"
            "__global__ void scale_kernel(float* out, const float* in, float a, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) out[i] = in[i] * a;\n"
            "}\n");
  const std::string whole = run_tpulint("scan '" + dir.str() + "' --no-cache --format json --exit-zero").out;
  const json report = json::parse(whole);
  json build;
  for (const json& f : report.at("findings"))
    if (f.at("id") == "TPU110") build = f;
  REQUIRE(build.is_object());
  CHECK(build.at("related_paths") == std::vector<std::string>{"csrc/scale.cu", "csrc/scale_kernel.cuh"});
  CHECK(build.at("effort").at("class") == "low");
  CHECK(build.at("effort").at("hours_high").get<double>() <= 2);
  // The report merged alone is the scan's, byte for byte: both settle the build from the same files.
  TempDir out;
  CHECK(run_tpulint("merge '" + out.write("whole.json", whole).string() + "' --format json --exit-zero").out == whole);
}

TEST_CASE("links: a GPU backend's module beside its TPU namesake is an alternative backend", "[e2e][links][backend]") {
  auto write = [](const TempDir& dir, bool tpu_namesake) {
    dir.write("pkg/__init__.py", "");
    dir.write("pkg/attention/__init__.py", "");
    dir.write("pkg/attention/GPU_Attention.py",
              "from jax.experimental.pallas import triton as plgpu\n"
              "def attend(q, k, v):\n"
              "    return plgpu.load(q)\n");
    if (tpu_namesake)
      dir.write("pkg/attention/tpu_attention.py", "def attend(q, k, v):\n    return q\n");
    dir.write("pkg/attention/dispatch.py",
              "from pkg.attention.GPU_Attention import attend as gpu_attend\n"
              "BACKENDS = dict(gpu=gpu_attend)\n");
  };
  TempDir both;
  write(both, true);
  for (const std::string& c : contexts(scan(both), "pkg/attention/GPU_Attention.py", "TPU501")) CHECK(c == "guarded");
  CHECK_FALSE(contexts(scan(both), "pkg/attention/GPU_Attention.py", "TPU501").empty());
  TempDir alone;
  write(alone, false);
  for (const std::string& c : contexts(scan(alone), "pkg/attention/GPU_Attention.py", "TPU501")) CHECK(c != "guarded");
  CHECK_FALSE(contexts(scan(alone), "pkg/attention/GPU_Attention.py", "TPU501").empty());
}

TEST_CASE("links: a GPU backend's module no core module imports is a library's GPU variant", "[e2e][links][backend]") {
  enum class Use { None, Test, Core, Script };
  auto contexts_of = [](Use use) {
    TempDir dir;
    dir.write("pkg/__init__.py", "");
    dir.write("pkg/layers/__init__.py", "");
    dir.write("pkg/layers/attention.py", "def attend(q, k, v):\n    return q\n");
    std::string module =
        "import jax\n"
        "def attend(q, k, v):\n"
        "    return jax.nn.dot_product_attention(q, k, v, implementation='cudnn')\n";
    if (use == Use::Script)
      module += "if __name__ == '__main__':\n    import argparse\n    args = argparse.ArgumentParser().parse_args()\n";
    dir.write("pkg/layers/gpu_fast_attention.py", module);
    if (use == Use::Test) dir.write("tests/test_gpu.py", "from pkg.layers.gpu_fast_attention import attend\n");
    if (use == Use::Core)
      dir.write("pkg/model.py", "from pkg.layers.gpu_fast_attention import attend\ndef forward(q):\n    return attend(q, q, q)\n");
    return contexts(scan(dir), "pkg/layers/gpu_fast_attention.py", "TPU414");
  };
  for (Use use : {Use::None, Use::Test}) {
    const std::vector<std::string> found = contexts_of(use);
    CHECK_FALSE(found.empty());
    for (const std::string& c : found) CHECK(c == "guarded");
  }
  for (Use use : {Use::Core, Use::Script}) {
    const std::vector<std::string> found = contexts_of(use);
    CHECK_FALSE(found.empty());
    for (const std::string& c : found) CHECK(c != "guarded");
  }
}

TEST_CASE("links: an op module (an autograd Function in a Module) among a zoo's models is priced whole", "[e2e][links][zoo]") {
  TempDir dir;
  write_model_zoo(dir);
  dir.write("zoo/d.py",
            "import torch\nfrom torch import nn\n"
            "class DFunction(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n"
            "        return torch.histc(x)\n"
            "class D(nn.Module):\n"
            "    def forward(self, x):\n"
            "        return DFunction.apply(x)\n");
  const json report = scan(dir);
  CHECK(item_hours(report, "torch.histc").first > 0);
  CHECK(item_hours(report, "torch.bucketize") == std::pair<double, double>{0, 0});
}
