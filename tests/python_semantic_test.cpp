// The Python semantic model: each finding gets the context of the code it stands on, and a
// finding of a device-code check in host-side, one-time or evaluation code, or any finding in
// guarded code, is discounted. Every rule both ways: the context that discounts, and a near
// miss that does not.
#include <algorithm>
#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <vector>

#include "checks/python/frameworks/code_roles.h"
#include "checks/registry.h"
#include "core/source_file.h"
#include "python/python_analyzer.h"

using namespace tpulint;

namespace {

struct Seen {
  std::string id;
  uint32_t line;
  Context context;
  bool discounted;
  Severity severity;
  std::string optional_option;
};

// The analysis of one file by every check, with the project's code role facts.
FileResult analyzed(const std::string& path, const std::string& text) {
  std::vector<std::string_view> ids;
  for (const checks::CheckDef* c : checks::all_checks()) ids.push_back(c->info.id);
  auto entries = checks::python_checks(ids);
  python::PythonAnalyzer analyzer(entries, &checks::code_role_facts());
  SourceFile file(path, "/abs/" + path, Language::Python, text);
  FileResult result;
  analyzer.analyze(file, result);
  return result;
}

std::vector<Seen> analyze(const std::string& path, const std::string& text) {
  const FileResult result = analyzed(path, text);
  std::vector<Seen> out;
  for (const Finding& f : result.findings) out.push_back({f.check_id, f.start.line, f.context, f.discounted, f.severity, f.optional_option.str()});
  return out;
}

// The one finding of `id` on `line`.
Seen at(const std::vector<Seen>& seen, std::string_view id, uint32_t line) {
  const Seen* found = nullptr;
  for (const Seen& s : seen)
    if (s.id == id && s.line == line) {
      REQUIRE(found == nullptr);
      found = &s;
    }
  INFO(id << " on line " << line);
  REQUIRE(found != nullptr);
  return *found;
}

// Each finding of one of `ids` as "ID:line context", with "+discounted" when it is and "+optional"
// when only an off-by-default option runs it, in report order.
std::vector<std::string> placed(const std::vector<Seen>& seen, std::initializer_list<std::string_view> ids) {
  std::vector<std::string> out;
  for (const Seen& s : seen)
    if (std::find(ids.begin(), ids.end(), s.id) != ids.end())
      out.push_back(s.id + ":" + std::to_string(s.line) + " " + std::string(to_string(s.context)) +
                    (s.discounted ? "+discounted" : "") + (s.optional_option.empty() ? "" : "+optional"));
  return out;
}

}  // namespace

TEST_CASE("semantic: a model's forward is the hot path, its constructor one-time code", "[python][semantic]") {
  auto seen = analyze("pkg/model.py",
                      "import torch\n"                                 // 1
                      "class Net(torch.nn.Module):\n"                  // 2
                      "    def __init__(self, t):\n"                   // 3
                      "        self.idx = torch.nonzero(t)\n"          // 4
                      "        self.w = self.table(t)\n"               // 5
                      "    def table(self, t):\n"                      // 6
                      "        return torch.unique(t)\n"               // 7
                      "    def shared(self, t):\n"                     // 8
                      "        return torch.argwhere(t)\n"             // 9
                      "    def forward(self, x):\n"                    // 10
                      "        y = self.shared(x)\n"                   // 11
                      "        return torch.nonzero(x)\n"              // 12
                      "    def reset(self, t):\n"                      // 13
                      "        return self.shared(t)\n");              // 14
  Seen init = at(seen, "TPU201", 4);
  CHECK(init.context == Context::OneTime);
  CHECK(init.discounted);
  CHECK(init.severity == Severity::Info);
  // Called only from the constructor: one-time too.
  CHECK(at(seen, "TPU201", 7).context == Context::OneTime);
  // Called from forward and from a method of no known role: the hot path wins.
  Seen shared = at(seen, "TPU201", 9);
  CHECK(shared.context == Context::HotPath);
  CHECK_FALSE(shared.discounted);
  Seen forward = at(seen, "TPU201", 12);
  CHECK(forward.context == Context::HotPath);
  CHECK_FALSE(forward.discounted);
  CHECK(forward.severity == Severity::Warning);
}

TEST_CASE("semantic: a CUDA API in one-time code is still a blocker, in guarded code it is not", "[python][semantic]") {
  auto seen = analyze("pkg/setup_model.py",
                      "import torch\n"                                  // 1
                      "class Net(torch.nn.Module):\n"                   // 2
                      "    def __init__(self):\n"                       // 3
                      "        self.buf = torch.zeros(3).cuda()\n"      // 4
                      "def place(model):\n"                             // 5
                      "    if torch.cuda.is_available():\n"             // 6
                      "        model = model.cuda()\n"                  // 7
                      "    return model.cuda()\n"                       // 8
                      "def pick(x):\n"                                  // 9
                      "    return x.cuda() if x.is_cuda else x\n");     // 10
  Seen init = at(seen, "TPU401", 4);
  CHECK(init.context == Context::OneTime);
  CHECK_FALSE(init.discounted);  // .cuda() fails on a TPU host wherever it runs
  CHECK(init.severity == Severity::Error);
  Seen guarded = at(seen, "TPU401", 7);
  CHECK(guarded.context == Context::Guarded);
  CHECK(guarded.discounted);
  Seen unguarded = at(seen, "TPU401", 8);
  CHECK(unguarded.context == Context::Unknown);
  CHECK_FALSE(unguarded.discounted);
  CHECK(at(seen, "TPU401", 10).context == Context::Guarded);  // a conditional expression
}

TEST_CASE("semantic: an optional import with an ImportError handler is guarded, a plain one is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/attn.py",
                      "try:\n"                                         // 1
                      "    from flash_attn import flash_attn_func\n"   // 2
                      "except ImportError:\n"                          // 3
                      "    flash_attn_func = None\n"                   // 4
                      "import apex\n");                                // 5
  Seen optional = at(seen, "TPU501", 2);
  CHECK(optional.context == Context::Guarded);
  CHECK(optional.discounted);
  CHECK_FALSE(at(seen, "TPU501", 5).discounted);
}

TEST_CASE("semantic: a bare or broad handler around an import makes it optional, around other code it is error handling",
          "[python][semantic]") {
  auto seen = analyze("pkg/attn.py",
                      "import torch\n"                                 // 1
                      "try:\n"                                         // 2
                      "    from flash_attn import flash_attn_func\n"   // 3
                      "except:\n"                                      // 4
                      "    flash_attn_func = None\n"                   // 5
                      "def run(x):\n"                                  // 6
                      "    return x.cuda()\n"                          // 7
                      "def cli(x):\n"                                  // 8
                      "    try:\n"                                     // 9
                      "        run(x)\n"                               // 10
                      "    except Exception as e:\n"                   // 11
                      "        print(e)\n");                           // 12
  CHECK(at(seen, "TPU501", 3).context == Context::Guarded);
  Seen handled = at(seen, "TPU401", 7);
  CHECK(handled.context != Context::Guarded);
  CHECK_FALSE(handled.discounted);
}

TEST_CASE("semantic: a function both paths of a guard call is not guarded code, one only a guarded path calls is",
          "[python][semantic]") {
  auto seen = analyze("pkg/launch.py",
                      "import torch\n"                                 // 1
                      "def worker(rank):\n"                            // 2
                      "    return torch.device('cuda', rank)\n"        // 3
                      "def fast(x):\n"                                 // 4
                      "    return x.cuda()\n"                          // 5
                      "def main(num_gpus, x):\n"                       // 6
                      "    if num_gpus == 1:\n"                        // 7
                      "        worker(0)\n"                            // 8
                      "        fast(x)\n"                              // 9
                      "    else:\n"                                    // 10
                      "        spawn(fn=worker, nprocs=num_gpus)\n");  // 11
  Seen both = at(seen, "TPU401", 3);
  CHECK(both.context != Context::Guarded);
  CHECK_FALSE(both.discounted);
  CHECK(at(seen, "TPU401", 5).context == Context::Guarded);
}

TEST_CASE("semantic: a branch on a device, backend or optional library is guarded, a branch on anything else is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/net.py",
                      "import torch\n"                                 // 1
                      "try:\n"                                         // 2
                      "    import fused_ops\n"                         // 3
                      "except ImportError:\n"                          // 4
                      "    fused_ops = None\n"                         // 5
                      "class Net(torch.nn.Module):\n"                  // 6
                      "    def forward(self, x):\n"                    // 7
                      "        if fused_ops is not None:\n"            // 8
                      "            return torch.nonzero(x)\n"          // 9
                      "        if self.training:\n"                    // 10
                      "            return torch.nonzero(x)\n"          // 11
                      "        if x.device.type == 'cuda':\n"          // 12
                      "            torch.cuda.synchronize()\n"         // 13
                      "        return x\n");                           // 14
  CHECK(at(seen, "TPU201", 9).context == Context::Guarded);
  Seen training = at(seen, "TPU201", 11);
  CHECK(training.context == Context::HotPath);
  CHECK_FALSE(training.discounted);
  CHECK(at(seen, "TPU403", 13).context == Context::Guarded);
  // A branch for NVIDIA's Nsight Systems profiler runs only on NVIDIA GPUs; one for another mode does not.
  auto profiler = analyze("pkg/profiler.py",
                          "import torch\n"                                    // 1
                          "class Profiler:\n"                                 // 2
                          "    def start(self):\n"                            // 3
                          "        if self.mode == 'nsys':\n"                 // 4
                          "            torch.cuda.synchronize()\n"            // 5
                          "        if self.mode == 'xplane':\n"               // 6
                          "            torch.cuda.synchronize()\n");          // 7
  CHECK(at(profiler, "TPU403", 5).context == Context::Guarded);
  CHECK(at(profiler, "TPU403", 7).context != Context::Guarded);
}

TEST_CASE("semantic: a branch only releases older than a port's take is dead code, the other path is the code",
          "[python][semantic]") {
  auto seen = analyze("pkg/bn_helper.py",
                      "import torch\n"                                                     // 1
                      "import jax\n"                                                       // 2
                      "from distutils.version import LooseVersion\n"                       // 3
                      "TORCH_VERSION = tuple(int(v) for v in torch.__version__.split('.')[:2])\n"  // 4
                      "if torch.__version__.startswith('0'):\n"                            // 5
                      "    a = torch.ones(3).cuda()\n"                                     // 6
                      "else:\n"                                                            // 7
                      "    b = torch.ones(3).cuda()\n"                                     // 8
                      "if LooseVersion(torch.__version__) < LooseVersion('1.8'):\n"        // 9
                      "    c = torch.ones(3).cuda()\n"                                     // 10
                      "if TORCH_VERSION >= (1, 8):\n"                                      // 11
                      "    d = torch.ones(3).cuda()\n"                                     // 12
                      "else:\n"                                                            // 13
                      "    e = torch.ones(3).cuda()\n"                                     // 14
                      "if not torch.__version__ >= '1.4' and torch.cuda.is_available():\n" // 15
                      "    f = torch.ones(3).cuda()\n"                                     // 16
                      "elif torch.__version__ < '2.1':\n"                                  // 17
                      "    g = torch.ones(3).cuda()\n"                                     // 18
                      "else:\n"                                                            // 19
                      "    h = torch.ones(3).cuda()\n"                                     // 20
                      "if torch.__version__ >= '3.0':\n"                                   // 21
                      "    i = torch.ones(3).cuda()\n"                                     // 22
                      "else:\n"                                                            // 23
                      "    j = torch.ones(3).cuda()\n"                                     // 24
                      "if jax.__version__.startswith('0.'):\n"                             // 25
                      "    k = torch.ones(3).cuda()\n"                                     // 26
                      "if torch.__version__ < '1.8' or use_legacy:\n"                      // 27
                      "    l = torch.ones(3).cuda()\n");                                   // 28
  for (uint32_t line : {6u, 10u, 14u, 16u, 18u}) {
    INFO("line " << line);
    CHECK(at(seen, "TPU401", line).context == Context::Guarded);
    CHECK(at(seen, "TPU401", line).discounted);
  }
  // The paths current releases take; a test against a release newer than a port's (3.0), JAX's 0.x
  // releases, and an `or` the version does not decide are no dead code.
  for (uint32_t line : {8u, 12u, 20u, 22u, 24u, 26u, 28u}) {
    INFO("line " << line);
    CHECK(at(seen, "TPU401", line).context != Context::Guarded);
    CHECK_FALSE(at(seen, "TPU401", line).discounted);
  }
  // A name only assigned in a function holds no release for the module's branches; a conditional
  // expression's dead arm is dead too.
  auto local = analyze("pkg/local.py",
                       "import torch\n"                                               // 1
                       "def setup():\n"                                               // 2
                       "    version = torch.__version__\n"                            // 3
                       "    return version\n"                                         // 4
                       "version = '0.4'\n"                                            // 5
                       "if version < '1.0':\n"                                        // 6
                       "    m = torch.ones(3).cuda()\n"                               // 7
                       "n = torch.ones(3).cuda() if torch.__version__ < '1.0' else None\n");  // 8
  CHECK(at(local, "TPU401", 7).context != Context::Guarded);
  CHECK(at(local, "TPU401", 8).context == Context::Guarded);
  // Generated nests decide nothing, in bounded time and stack: 200 `not`s, a version in 300 calls.
  std::string nots, calls = "'1.0'";
  for (int i = 0; i < 200; ++i) nots += "not ";
  for (int i = 0; i < 300; ++i) calls = "v(" + calls + ")";
  auto nested = analyze("pkg/nested.py",
                        "import torch\n"                                                   // 1
                        "if " + nots + "torch.__version__ < '1.0':\n"                      // 2
                        "    a = torch.ones(3).cuda()\n"                                   // 3
                        "if torch.__version__ < " + calls + ":\n"                          // 4
                        "    b = torch.ones(3).cuda()\n");                                 // 5
  CHECK(at(nested, "TPU401", 3).context != Context::Guarded);
  CHECK(at(nested, "TPU401", 5).context != Context::Guarded);
}

TEST_CASE("semantic: host data path by module, by keyword and by dataset class, evaluation by name", "[python][semantic]") {
  const std::string helper = "import torch\ndef prep(x):\n    return torch.nonzero(x)\n";
  Seen host = at(analyze("pkg/datasets/coco.py", helper), "TPU201", 3);
  CHECK(host.context == Context::Host);
  CHECK(host.discounted);
  Seen model = at(analyze("pkg/models/coco.py", helper), "TPU201", 3);
  CHECK(model.context == Context::Unknown);
  CHECK_FALSE(model.discounted);

  auto seen = analyze("pkg/train_utils.py",
                      "import torch\n"                                             // 1
                      "def batchify(items):\n"                                     // 2
                      "    return torch.nonzero(items)\n"                          // 3
                      "def make_loader(ds):\n"                                     // 4
                      "    return torch.utils.data.DataLoader(ds, collate_fn=batchify)\n"  // 5
                      "def evaluate(model, x):\n"                                  // 6
                      "    return torch.unique(model(x))\n"                        // 7
                      "def score(model, x):\n"                                     // 8
                      "    return torch.unique(model(x))\n");                      // 9
  CHECK(at(seen, "TPU201", 3).context == Context::Host);
  CHECK(at(seen, "TPU201", 7).context == Context::Eval);
  CHECK(at(seen, "TPU201", 7).discounted);
  CHECK(at(seen, "TPU201", 9).context == Context::Unknown);
}

TEST_CASE("semantic: a loop that calls backward is a training loop whatever its function is named, what is around it "
          "is setup, and jitted code is hot",
          "[python][semantic]") {
  auto seen = analyze("pkg/run.py",
                      "import torch\n"                                 // 1
                      "import jax\n"                                   // 2
                      "import jax.numpy as jnp\n"                      // 3
                      "def main(model, loader, opt):\n"                // 4
                      "    for x in loader:\n"                         // 5
                      "        loss = model(x)\n"                      // 6
                      "        loss.backward()\n"                      // 7
                      "        keep = torch.nonzero(x)\n"              // 8
                      "    return torch.nonzero(x)\n"                  // 9
                      "def step(params, batch):\n"                     // 10
                      "    return jnp.nonzero(batch)\n"                // 11
                      "fast_step = jax.jit(step)\n"                    // 12
                      "def report(batch):\n"                           // 13
                      "    return jnp.nonzero(batch)\n");              // 14
  Seen loop = at(seen, "TPU201", 8);
  CHECK(loop.context == Context::Loop);
  CHECK_FALSE(loop.discounted);
  // After the loop, in the function that holds it: teardown, once.
  Seen after = at(seen, "TPU201", 9);
  CHECK(after.context == Context::OneTime);
  CHECK(after.discounted);
  CHECK(at(seen, "TPU210", 11).context == Context::HotPath);
  CHECK(at(seen, "TPU210", 14).context == Context::Unknown);
}

TEST_CASE("semantic: a tensor grown in a loop: dropped on the hot path, discounted in a Dataset, kept in a sampling loop",
          "[python][semantic]") {
  auto seen = analyze("pkg/model.py",
                      "import torch\n"                                        // 1
                      "class Net(torch.nn.Module):\n"                         // 2
                      "    def features(self, x):\n"                          // 3
                      "        for blk in self.blocks:\n"                     // 4
                      "            x = torch.cat([x, blk(x)])\n"              // 5
                      "        return x\n"                                    // 6
                      "    def forward(self, x):\n"                           // 7
                      "        return self.features(x)\n"                     // 8
                      "    def generate(self, idx, n):\n"                     // 9
                      "        for _ in range(n):\n"                          // 10
                      "            idx = torch.cat([idx, self(idx)])\n"       // 11
                      "        return idx\n"                                  // 12
                      "class Clips(torch.utils.data.Dataset):\n"              // 13
                      "    def __getitem__(self, i):\n"                       // 14
                      "        clip = torch.zeros(0)\n"                       // 15
                      "        for f in self.frames[i]:\n"                    // 16
                      "            clip = torch.cat([clip, self.load(f)])\n"  // 17
                      "        return clip\n");                               // 18
  // A loop called from forward is unrolled into the step's one graph: not reported.
  for (const Seen& s : seen) CHECK_FALSE((s.id == "TPU207" && s.line == 5));
  Seen sampling = at(seen, "TPU207", 11);
  CHECK(sampling.context == Context::Unknown);
  CHECK_FALSE(sampling.discounted);
  CHECK(sampling.severity == Severity::Warning);
  Seen host = at(seen, "TPU207", 17);
  CHECK(host.context == Context::Host);
  CHECK(host.discounted);
  CHECK(host.severity == Severity::Info);
}

TEST_CASE("semantic: a function called only behind a guard is guarded code, one also called without a guard is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/attention.py",
                      "import torch\n"                                        // 1
                      "def te_attention(q):\n"                                // 2
                      "    import transformer_engine\n"                       // 3
                      "    return q.cuda()\n"                                 // 4
                      "def fused(q):\n"                                       // 5
                      "    return q.cuda()\n"                                 // 6
                      "class Attention(torch.nn.Module):\n"                   // 7
                      "    def forward(self, q):\n"                           // 8
                      "        if self.kernel == 'cudnn_flash_te':\n"         // 9
                      "            return te_attention(q)\n"                  // 10
                      "        if self.use_fused_kernel:\n"                   // 11
                      "            q = fused(q)\n"                            // 12
                      "        return fused(q)\n");                           // 13
  CHECK(at(seen, "TPU501", 3).context == Context::Guarded);
  CHECK(at(seen, "TPU501", 3).discounted);
  CHECK(at(seen, "TPU401", 4).context == Context::Guarded);
  Seen both = at(seen, "TPU401", 6);
  CHECK(both.context == Context::HotPath);
  CHECK_FALSE(both.discounted);
}

TEST_CASE("semantic: flags an ImportError handler binds are guards, other has_ names are not", "[python][semantic]") {
  auto seen = analyze("pkg/fused.py",
                      "import torch\n"                                 // 1
                      "try:\n"                                         // 2
                      "    import apex\n"                              // 3
                      "    APEX_OK = True\n"                           // 4
                      "except ImportError:\n"                          // 5
                      "    APEX_OK = False\n"                          // 6
                      "def place(x, opts):\n"                          // 7
                      "    if APEX_OK:\n"                              // 8
                      "        x = x.cuda()\n"                         // 9
                      "    if opts.has_flag('fast'):\n"                // 10
                      "        x = x.cuda()\n"                         // 11
                      "    return x\n");                               // 12
  CHECK(at(seen, "TPU401", 9).context == Context::Guarded);
  Seen flag = at(seen, "TPU401", 11);
  CHECK(flag.context == Context::Unknown);
  CHECK_FALSE(flag.discounted);
}

TEST_CASE("semantic: a post-processing module's forward is evaluation, an autograd Function's backward is hot",
          "[python][semantic]") {
  auto seen = analyze("pkg/heads.py",
                      "import torch\n"                                          // 1
                      "class PostProcess(torch.nn.Module):\n"                   // 2
                      "    def forward(self, scores):\n"                        // 3
                      "        return torch.nonzero(scores > 0.5)\n"            // 4
                      "class Head(torch.nn.Module):\n"                          // 5
                      "    def forward(self, scores):\n"                        // 6
                      "        return torch.nonzero(scores > 0.5)\n"            // 7
                      "class Gather(torch.autograd.Function):\n"                // 8
                      "    @staticmethod\n"                                     // 9
                      "    def backward(ctx, g):\n"                             // 10
                      "        return torch.nonzero(g)\n");                     // 11
  Seen post = at(seen, "TPU201", 4);
  CHECK(post.context == Context::Eval);
  CHECK(post.discounted);
  CHECK(at(seen, "TPU201", 7).context == Context::HotPath);
  CHECK(at(seen, "TPU201", 11).context == Context::HotPath);
}

TEST_CASE("semantic: a scheduler's step makes no training loop, an optimizer's does", "[python][semantic]") {
  auto seen = analyze("pkg/loop.py",
                      "import torch\n"                                 // 1
                      "def describe(x):\n"                             // 2
                      "    return torch.unique(x)\n"                   // 3
                      "def measure(x):\n"                              // 4
                      "    return torch.unique(x)\n"                   // 5
                      "def epochs(model, lr_scheduler, x):\n"          // 6
                      "    for epoch in range(3):\n"                   // 7
                      "        lr_scheduler.step()\n"                  // 8
                      "        describe(x)\n"                          // 9
                      "def steps(model, optimizer, x):\n"              // 10
                      "    for batch in x:\n"                          // 11
                      "        optimizer.step()\n"                     // 12
                      "        measure(batch)\n");                     // 13
  CHECK(at(seen, "TPU201", 3).context == Context::Unknown);
  CHECK(at(seen, "TPU201", 5).context == Context::HotPath);
}

TEST_CASE("semantic: an environment's step makes no training loop and a periodic branch of one is not the loop",
          "[python][semantic]") {
  auto seen = analyze("pkg/rollout.py",
                      "import torch\n"                                 // 1
                      "def observe(x):\n"                              // 2
                      "    return torch.unique(x)\n"                   // 3
                      "def report(x):\n"                               // 4
                      "    return torch.unique(x)\n"                   // 5
                      "def rollout(env, x):\n"                         // 6
                      "    for t in range(100):\n"                     // 7
                      "        env.step(t)\n"                          // 8
                      "        observe(x)\n"                           // 9
                      "def train(optimizer, loader):\n"                // 10
                      "    for step, batch in enumerate(loader):\n"    // 11
                      "        optimizer.step()\n"                     // 12
                      "        if step % 100 == 0:\n"                  // 13
                      "            report(batch)\n"                    // 14
                      "        torch.nonzero(batch)\n");               // 15
  CHECK(at(seen, "TPU201", 3).context == Context::Unknown);
  CHECK(at(seen, "TPU201", 5).context == Context::OneTime);  // every 100 steps, and no evaluation
  CHECK(at(seen, "TPU201", 15).context == Context::Loop);
}

TEST_CASE("semantic: a periodic branch of a training loop that evaluates is evaluation, one that logs is one-time code",
          "[python][semantic]") {
  auto seen = analyze("pkg/train.py",
                      "import torch\n"                                           // 1
                      "def train(model, optimizer, loader, val_every):\n"        // 2
                      "    for i, batch in enumerate(loader):\n"                 // 3
                      "        model(batch).backward()\n"                        // 4
                      "        optimizer.step()\n"                               // 5
                      "        if divisible_by(i, val_every):\n"                 // 6
                      "            model.eval()\n"                               // 7
                      "            with torch.no_grad():\n"                      // 8
                      "                keep = torch.nonzero(model(batch))\n"     // 9
                      "        if i % 100 == 0:\n"                               // 10
                      "            torch.save(torch.nonzero(batch), 'b.pt')\n"   // 11
                      "        if i % 1000 == 0:\n"                              // 12
                      "            sample(model, batch)\n"                       // 13
                      "def sample(model, batch):\n"                              // 14
                      "    return torch.unique(model(batch))\n");                // 15
  // Line 15: a function called only from an evaluating branch.
  CHECK(placed(seen, {"TPU201"}) ==
        std::vector<std::string>{"TPU201:9 eval+discounted", "TPU201:11 one-time+discounted", "TPU201:15 eval+discounted"});
}

TEST_CASE("semantic: a lazy initialization in the hot path is one-time code, a branch that tests without making is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/model.py",
                      "import torch\n"                                                      // 1
                      "import scipy.io as sio\n"                                            // 2
                      "class Net(torch.nn.Module):\n"                                       // 3
                      "    def forward(self, x):\n"                                         // 4
                      "        if not hasattr(Net, 'weights'):\n"                           // 5
                      "            Net.weights = sio.loadmat(self.path)\n"                  // 6
                      "        if self.mask is None:\n"                                     // 7
                      "            self.mask = torch.nonzero(x)\n"                          // 8
                      "        else:\n"                                                     // 9
                      "            keep = torch.nonzero(x)\n"                               // 10
                      "        if not self.built:\n"                                        // 11
                      "            self.table = torch.unique(x)\n"                          // 12
                      "            self.built = True\n"                                     // 13
                      "        if self.cache is None:\n"                                    // 14
                      "            y = torch.unique(x)\n"                                   // 15
                      "        if self.cache is None or x.shape[0] > self.n:\n"             // 16
                      "            self.cache = torch.unique(x)\n"                          // 17
                      "        for step in range(3):\n"                                     // 18
                      "            if not hasattr(self, 'fn'):\n"                           // 19
                      "                def build():\n"                                      // 20
                      "                    self.fn = 1\n"                                   // 21
                      "                keep = torch.nonzero(x)\n"                           // 22
                      "        table = sio.loadmat(self.path)\n"                            // 23
                      "        return x\n");                                                // 24
  // Lines 6, 8, 13: the body makes what its condition tests. Line 10: the else runs every call.
  // Line 15: the body tests but makes nothing; 17: recomputed when a shape grows; 22: only a
  // nested function assigns it.
  // Host libraries are reported in the hot path only: line 6's load runs once, line 23's every call
  // (a field for the argument: TPU611 drops calls whose arguments the host makes alone, literals).
  CHECK(placed(seen, {"TPU611"}) == std::vector<std::string>{"TPU611:23 hot-path"});
  CHECK(placed(seen, {"TPU201"}) ==
        std::vector<std::string>{"TPU201:8 one-time+discounted", "TPU201:10 hot-path", "TPU201:12 one-time+discounted",
                                 "TPU201:15 hot-path", "TPU201:17 hot-path", "TPU201:22 hot-path"});
}

TEST_CASE("semantic: what runs only out of training mode is evaluation code, what tests more or also trains is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/detector.py",
                      "import torch\n"                                                      // 1
                      "class Detector(torch.nn.Module):\n"                                  // 2
                      "    def forward(self, x):\n"                                         // 3
                      "        if self.training:\n"                                         // 4
                      "            y = torch.nonzero(x)\n"                                  // 5
                      "        else:\n"                                                     // 6
                      "            y = torch.unique(x)\n"                                   // 7
                      "        if not self.training:\n"                                     // 8
                      "            y = torch.nonzero(y)\n"                                  // 9
                      "        if self.training and self.drop:\n"                           // 10
                      "            y = torch.nonzero(y)\n"                                  // 11
                      "        else:\n"                                                     // 12
                      "            y = torch.unique(y)\n"                                   // 13
                      "        if self.training:\n"                                         // 14
                      "            return torch.nonzero(y)\n"                               // 15
                      "        return self.postprocess(y)\n"                                // 16
                      "    def postprocess(self, y):\n"                                     // 17
                      "        return torch.unique(y)\n");                                  // 18
  // Lines 7, 9: only out of training; 16-18: after a training branch that returns, and what only
  // that calls. Lines 11 and 13: a conjunction decides nothing (its else runs in training too).
  CHECK(placed(seen, {"TPU201"}) ==
        std::vector<std::string>{"TPU201:5 hot-path", "TPU201:7 eval+discounted", "TPU201:9 eval+discounted",
                                 "TPU201:11 hot-path", "TPU201:13 hot-path", "TPU201:15 hot-path",
                                 "TPU201:18 eval+discounted"});
  // An estimator's mode and a phase compared with a value; a Keras layer's `training` argument.
  auto estimator = analyze("pkg/model_fn.py",
                           "import tensorflow as tf\n"                                         // 1
                           "def model_fn(features, labels, mode, params):\n"                    // 2
                           "    if mode == tf.estimator.ModeKeys.EVAL:\n"                        // 3
                           "        def metric_fn(**kwargs):\n"                                  // 4
                           "            return tf.numpy_function(f, [kwargs['x']], tf.float32)\n"  // 5
                           "    if mode != tf.estimator.ModeKeys.TRAIN:\n"                       // 6
                           "        d = tf.numpy_function(f, [features], tf.float32)\n"          // 7
                           "    if mode == tf.estimator.ModeKeys.TRAIN:\n"                       // 8
                           "        t = tf.numpy_function(f, [features], tf.float32)\n"          // 9
                           "    return tf.numpy_function(f, [features], tf.float32)\n"           // 10
                           "class Head(tf.keras.layers.Layer):\n"                              // 11
                           "    def call(self, x, training=False):\n"                          // 12
                           "        if training:\n"                                             // 13
                           "            return x\n"                                             // 14
                           "        return tf.unique(x)\n");                                    // 15
  CHECK(at(estimator, "TPU307", 5).context == Context::Eval);
  CHECK(at(estimator, "TPU307", 7).context == Context::Eval);
  CHECK(at(estimator, "TPU307", 9).context != Context::Eval);
  CHECK(at(estimator, "TPU307", 10).context != Context::Eval);
  CHECK(at(estimator, "TPU220", 15).context == Context::Eval);
}

TEST_CASE("semantic: a test module is test code by its path, a module named like one is not", "[python][semantic]") {
  const std::string code = "import torch\ndef check(x):\n    return torch.nonzero(x)\n";
  CHECK(at(analyze("pkg/test.py", code), "TPU201", 3).context == Context::Test);
  CHECK(at(analyze("pkg/ops_test.py", code), "TPU201", 3).context == Context::Test);
  CHECK(at(analyze("pkg/tests/helpers.py", code), "TPU201", 3).context == Context::Test);
  CHECK(at(analyze("pkg/testimony.py", code), "TPU201", 3).context == Context::Unknown);
}

TEST_CASE("semantic: a branch on a backend option that is off by default is guarded code, not one on by default "
          "nor a model option",
          "[python][semantic]") {
  auto seen = analyze("pkg/diffusion.py",
                      "import torch\n"                                                      // 1
                      "class Diffusion(torch.nn.Module):\n"                                 // 2
                      "    def __init__(self, net, useFlash=False, fused: bool = True):\n"  // 3
                      "        self.useFlash = useFlash\n"                                  // 4
                      "        self.fused = fused\n"                                        // 5
                      "    def forward(self, x):\n"                                         // 6
                      "        if self.useFlash:\n"                                         // 7
                      "            x = x.cuda()\n"                                          // 8
                      "        if self.fused:\n"                                            // 9
                      "            x = x.cuda()\n"                                          // 10
                      "        return x\n"                                                  // 11
                      "def export(model, use_trt=False):\n"                                 // 12
                      "    if not use_trt:\n"                                               // 13
                      "        return model\n"                                              // 14
                      "    return model.cuda()\n"                                           // 15
                      "def run(model, trt=False):\n"                                        // 16
                      "    if not trt:\n"                                                   // 17
                      "        return model\n"                                              // 18
                      "    else:\n"                                                         // 19
                      "        return model.cuda()\n");                                     // 20
  CHECK(at(seen, "TPU401", 8).context == Context::Guarded);
  CHECK(at(seen, "TPU401", 8).discounted);
  CHECK(at(seen, "TPU401", 10).context != Context::Guarded);  // on unless turned off
  CHECK_FALSE(at(seen, "TPU401", 10).discounted);
  // After an early exit unless the option is on: the same path as line 20's else (the boundary
  // without an exit is in "what follows an early exit" below).
  CHECK(at(seen, "TPU401", 15).context == Context::Guarded);
  CHECK(at(seen, "TPU401", 20).context == Context::Guarded);  // the else of a negated option
  // An option of the model's own (`if self.immiscible:`, `if return_masks:`) runs on a TPU as anywhere: its
  // context is where it runs. What only the model's off-by-default option runs is optional code (below);
  // a function's own parameter (`return_masks`) is no such option: its callers turn it on at will.
  auto model = analyze("pkg/diffusion.py",
                       "import torch\n"                                                   // 1
                       "class Diffusion(torch.nn.Module):\n"                              // 2
                       "    def __init__(self, net, immiscible=False):\n"                 // 3
                       "        self.immiscible = immiscible\n"                           // 4
                       "    def forward(self, x, return_masks=False):\n"                  // 5
                       "        if self.immiscible:\n"                                    // 6
                       "            x = torch.nonzero(x)\n"                               // 7
                       "        y = torch.unique(x) if return_masks else x\n"             // 8
                       "        if use_custom_op:\n"                                      // 9
                       "            x = x.cuda()\n"                                       // 10
                       "        return y\n"                                               // 11
                       "def export(model, use_custom_op=False):\n"                        // 12
                       "    if use_custom_op:\n"                                          // 13
                       "        return model.cuda()\n");                                  // 14
  // Line 10: `use_custom_op` is no parameter of forward; line 14: words in a row, custom_op.
  CHECK(placed(model, {"TPU201", "TPU401"}) == std::vector<std::string>{"TPU201:7 hot-path+optional", "TPU201:8 hot-path",
                                                                        "TPU401:10 hot-path", "TPU401:14 guarded+discounted"});
}

TEST_CASE("semantic: what only a model's off-by-default option runs is optional code, in the context where it runs",
          "[python][semantic]") {
  const std::string model =
      "import torch\n"                                                       // 1
      "from scipy.optimize import linear_sum_assignment\n"                   // 2
      "class Diffusion(torch.nn.Module):\n"                                  // 3
      "    def __init__(self, net, immiscible=False, exact=False, noisy=True):\n"  // 4
      "        self.immiscible = immiscible\n"                               // 5
      "    def assign(self, x):\n"                                          // 6
      "        return linear_sum_assignment(x.cpu())\n"                      // 7
      "    def sample(self, x):\n"                                          // 8
      "        if self.immiscible:\n"                                        // 9
      "            x = x[self.assign(x)]\n"                                  // 10
      "        if not self.exact:\n"                                         // 11
      "            x = x + 1\n"                                              // 12
      "        else:\n"                                                      // 13
      "            x = torch.nonzero(x)\n"                                   // 14
      "        if self.noisy:\n"                                             // 15
      "            x = torch.unique(x)\n"                                    // 16
      "        return torch.nonzero(x)\n"                                    // 17
      "    def forward(self, x):\n"                                          // 18
      "        return self.sample(x)\n";                                     // 19
  // Line 7: a method called only from the option's branch; line 14: the else of a negated option;
  // line 16: an option on by default; line 17: after the branches. Whether the project turns an
  // option on, and so whether its code is discounted, is the project links' (e2e_project_links_test).
  auto seen = analyze("pkg/diffusion.py", model);
  CHECK(placed(seen, {"TPU201", "TPU611"}) == std::vector<std::string>{"TPU611:7 hot-path+optional",
                                                                        "TPU201:14 hot-path+optional",
                                                                        "TPU201:16 hot-path", "TPU201:17 hot-path"});
  CHECK(at(seen, "TPU611", 7).optional_option == "immiscible");
  CHECK(at(seen, "TPU201", 14).optional_option == "exact");
  // In a conjunction, the option's term decides: the body runs only with it on. Not in a
  // disjunction, nor a negated term (`not self.exact and ...` runs with the option off).
  auto conjunction = analyze("pkg/head.py",
                             "import torch\n"                                                       // 1
                             "class Head(torch.nn.Module):\n"                                       // 2
                             "    def __init__(self, n, dcn_on_last_conv=False, exact=False):\n"    // 3
                             "        self.dcn_on_last_conv = dcn_on_last_conv\n"                   // 4
                             "        self.exact = exact\n"                                         // 5
                             "    def forward(self, x):\n"                                          // 6
                             "        for i in range(3):\n"                                         // 7
                             "            if self.dcn_on_last_conv and i == 2:\n"                   // 8
                             "                x = torch.nonzero(x)\n"                               // 9
                             "            if i == 2 or self.dcn_on_last_conv:\n"                    // 10
                             "                x = torch.nonzero(x)\n"                               // 11
                             "            if not self.exact and i == 2:\n"                          // 12
                             "                x = torch.nonzero(x)\n"                               // 13
                             "        return x\n");                                                 // 14
  CHECK(placed(conjunction, {"TPU201"}) == std::vector<std::string>{"TPU201:9 hot-path+optional",
                                                                     "TPU201:11 hot-path", "TPU201:13 hot-path"});
  CHECK(at(conjunction, "TPU201", 9).optional_option == "dcn_on_last_conv");
  // A method also called outside the option's branch is not optional.
  auto shared = analyze("pkg/diffusion.py", model + "    def match(self, x):\n        return self.assign(x)\n");
  CHECK(at(shared, "TPU611", 7).optional_option.empty());
  // The keywords the file passes a value that may turn an option on: True, or what its caller
  // decides; not False, None or a literal.
  const FileResult train = analyzed("pkg/train.py",
                                    "from pkg.diffusion import Diffusion\n"
                                    "def main(args, net):\n"
                                    "    a = Diffusion(net, immiscible=args.immiscible, exact=False, noisy=None)\n"
                                    "    b = Diffusion(net, fused=True, depth=3, name='x', warm=not args.cold)\n");
  CHECK(train.links.options_turned_on == std::vector<std::string>{"fused", "immiscible", "warm"});
  // A config that only turns an option on: no finding, no import, still recorded.
  const FileResult config = analyzed("configs/fcos3d.py",
                                     "model = dict(type='FCOS3D', bbox_head=dict(dcn_on_last_conv=True, norm=None))\n");
  CHECK(config.findings.empty());
  // (A call's value may be anything, so `bbox_head=dict(...)` counts; a string or None does not.)
  CHECK(config.links.options_turned_on == std::vector<std::string>{"bbox_head", "dcn_on_last_conv"});
}

TEST_CASE("semantic: the branches beside a TPU path are another device's, whatever the condition names",
          "[python][semantic]") {
  auto seen = analyze("models/retinanet_main.py",
                      "import tensorflow as tf\n"                                               // 1
                      "from tensorflow.contrib import tpu as contrib_tpu\n"                     // 2
                      "def main(FLAGS):\n"                                                      // 3
                      "  if FLAGS.distribution_strategy is None:\n"                             // 4
                      "    run_config = contrib_tpu.RunConfig(tpu_config=contrib_tpu.TPUConfig(8))\n"  // 5
                      "  elif FLAGS.distribution_strategy == 'mirrored':\n"                     // 6
                      "    run_config = tf.distribute.MirroredStrategy()\n"                     // 7
                      "  else:\n"                                                               // 8
                      "    run_config = tf.distribute.experimental.MultiWorkerMirroredStrategy()\n"  // 9
                      "  if FLAGS.mode == 'train':\n"                                           // 10
                      "    strategy = tf.distribute.MirroredStrategy()\n"                       // 11
                      "  else:\n"                                                               // 12
                      "    strategy = None\n");                                                 // 13
  CHECK(at(seen, "TPU416", 7).context == Context::Guarded);
  CHECK(at(seen, "TPU416", 7).discounted);
  CHECK(at(seen, "TPU416", 9).context == Context::Guarded);
  // No branch of this `if` is a TPU path: a mode switch, not a device's.
  CHECK(at(seen, "TPU416", 11).context != Context::Guarded);
  CHECK_FALSE(at(seen, "TPU416", 11).discounted);
  // PyTorch/XLA beside CUDA; a name that only contains the letters (`xlabel`) is no TPU word.
  auto torch = analyze("pkg/train.py",
                       "import torch\n"                                                         // 1
                       "import torch_xla.core.xla_model as xm\n"                                // 2
                       "def device_of(kind, ax):\n"                                             // 3
                       "    if kind == 'accelerator':\n"                                        // 4
                       "        device = xm.xla_device()\n"                                     // 5
                       "    else:\n"                                                            // 6
                       "        device = torch.device('cuda')\n"                                // 7
                       "    if kind == 'plot':\n"                                               // 8
                       "        ax.set_xlabel('step')\n"                                        // 9
                       "    else:\n"                                                            // 10
                       "        device = torch.device('cuda')\n"                                // 11
                       "    return device\n");                                                  // 12
  CHECK(at(torch, "TPU401", 7).context == Context::Guarded);
  CHECK(at(torch, "TPU401", 11).context != Context::Guarded);
  // A handler that falls back to a TPU makes the `try` body another device's path; a handler that
  // falls back to nothing TPU-like does not.
  auto tried = analyze("trax/layers/acceleration.py",
                       "import jax\n"                                                           // 1
                       "def on_accelerator(x):\n"                                               // 2
                       "  try:\n"                                                               // 3
                       "    devices = jax.devices('gpu')\n"                                     // 4
                       "  except RuntimeError:\n"                                               // 5
                       "    try:\n"                                                             // 6
                       "      devices = jax.devices('tpu')\n"                                   // 7
                       "    except RuntimeError:\n"                                             // 8
                       "      devices = []\n"                                                   // 9
                       "  return devices\n"                                                     // 10
                       "def on_gpu(x):\n"                                                       // 11
                       "  try:\n"                                                               // 12
                       "    devices = jax.devices('gpu')\n"                                     // 13
                       "  except RuntimeError:\n"                                               // 14
                       "    devices = jax.devices('cpu')\n"                                     // 15
                       "  return devices\n");                                                   // 16
  CHECK(at(tried, "TPU414", 4).context == Context::Guarded);
  CHECK(at(tried, "TPU414", 4).discounted);
  CHECK(at(tried, "TPU414", 13).context != Context::Guarded);
  CHECK_FALSE(at(tried, "TPU414", 13).discounted);
}

TEST_CASE("semantic: what follows an early exit unless a guard holds is guarded code", "[python][semantic]") {
  auto seen = analyze("pkg/attend.py",
                      "import torch\n"                                                              // 1
                      "class Attend(torch.nn.Module):\n"                                            // 2
                      "    def __init__(self, use_flash=False):\n"                                  // 3
                      "        if not torch.cuda.is_available() or not use_flash:\n"                // 4
                      "            return\n"                                                        // 5
                      "        props = torch.cuda.get_device_properties(torch.device('cuda'))\n"    // 6
                      "    def forward(self, x):\n"                                                 // 7
                      "        if torch.cuda.is_available():\n"                                     // 8
                      "            return x\n"                                                      // 9
                      "        return x.cuda()\n"                                                   // 10
                      "def pick(x):\n"                                                              // 11
                      "    if not torch.cuda.is_available() and x.is_cpu:\n"                        // 12
                      "        return x\n"                                                          // 13
                      "    return x.cuda()\n"                                                       // 14
                      "def fallback(x):\n"                                                          // 15
                      "    if not torch.cuda.is_available():\n"                                     // 16
                      "        x = x.float()\n"                                                     // 17
                      "    return x.cuda()\n"                                                       // 18
                      "def main(c, x):\n"                                                           // 19
                      "    if c.batch_size % c.num_gpus != 0:\n"                                    // 20
                      "        raise ValueError(c)\n"                                               // 21
                      "    if x.device.type != 'cuda':\n"                                           // 22
                      "        return x\n"                                                          // 23
                      "    return x.cuda()\n");                                                     // 24
  CHECK(at(seen, "TPU402", 6).context == Context::Guarded);
  CHECK(at(seen, "TPU401", 6).discounted);
  // Not after an exit when the guard holds (line 10), nor an `and` (either may fail), nor a branch
  // that does not leave the block (line 18).
  CHECK(at(seen, "TPU401", 10).context != Context::Guarded);
  CHECK(at(seen, "TPU401", 14).context != Context::Guarded);
  CHECK(at(seen, "TPU401", 18).context != Context::Guarded);
  // An exit on a device test against a name: guarded; on arithmetic that names GPUs (line 20): a
  // validation, and line 24 is guarded by line 22 only.
  CHECK(at(seen, "TPU401", 24).context == Context::Guarded);
  auto validated = analyze("pkg/train.py",
                           "import torch\n"
                           "def main(c, x):\n"
                           "    if c.batch_size % c.num_gpus != 0:\n"
                           "        raise ValueError(c)\n"
                           "    return x.cuda()\n");
  CHECK(at(validated, "TPU401", 5).context != Context::Guarded);
  // A `raise` leaves no path without the library or the device: what follows needs it (BEVFormer's
  // assigner, `if linear_sum_assignment is None: raise ImportError(...)`); a `return` leaves one.
  const std::string optional_scipy =
      "import torch\n"
      "try:\n"
      "    from scipy.optimize import linear_sum_assignment\n"
      "except ImportError:\n"
      "    linear_sum_assignment = None\n"
      "class Matcher(torch.nn.Module):\n"
      "    def forward(self, cost):\n"
      "        if linear_sum_assignment is None:\n";
  auto required = analyze("pkg/matcher.py", optional_scipy +
                                                "            raise ImportError('pip install scipy')\n"  // 9
                                                "        return linear_sum_assignment(cost)\n");        // 10
  CHECK(at(required, "TPU611", 10).context == Context::HotPath);
  CHECK_FALSE(at(required, "TPU611", 10).discounted);
  auto needs_gpu = analyze("pkg/train.py",
                           "import torch\n"
                           "def main(x):\n"
                           "    if not torch.cuda.is_available():\n"
                           "        raise RuntimeError('a GPU is needed')\n"
                           "    return x.cuda()\n");
  CHECK(at(needs_gpu, "TPU401", 5).context != Context::Guarded);
  auto fallback = analyze("pkg/matcher.py", optional_scipy +
                                                "            return cost.argmin(-1)\n"        // 9
                                                "        return linear_sum_assignment(cost)\n");  // 10
  CHECK(placed(fallback, {"TPU611"}).empty());  // guarded: in device code only when the library is there
}

TEST_CASE("semantic: a host module's function that builds and returns a data loader is setup, its dataset stays host code",
          "[python][semantic]") {
  auto seen = analyze("pkg/data/loaders.py",
                      "import torch\n"                                                     // 1
                      "import tensorflow as tf\n"                                          // 2
                      "from torch.utils.data import DataLoader, Dataset\n"                 // 3
                      "def create_loader(ds, weighted):\n"                                 // 4
                      "    keep = torch.nonzero(ds.sizes)\n"                                // 5
                      "    loader = DataLoader if weighted else InfiniteLoader\n"           // 6
                      "    return loader(ds)\n"                                             // 7
                      "class InfiniteLoader(DataLoader):\n"                                 // 8
                      "    pass\n"                                                          // 9
                      "class Items(Dataset):\n"                                             // 10
                      "    def get(self, i):\n"                                             // 11
                      "        return torch.nonzero(self.x[i])\n"                           // 12
                      "def crop(x):\n"                                                      // 13
                      "    return torch.nonzero(x)\n"                                       // 14
                      "def make_pipeline(x):\n"                                             // 15
                      "    def parse(e):\n"                                                 // 16
                      "        return torch.nonzero(e)\n"                                   // 17
                      "    keep = torch.nonzero(x)\n"                                       // 18
                      "    return tf.data.Dataset.from_tensor_slices(x).map(parse).batch(2)\n");  // 19
  // The builders (5, 18) are setup; the dataset (12), a helper of no loader (14) and the
  // pipeline's map function (17) are the module's host code.
  CHECK(placed(seen, {"TPU201"}) ==
        std::vector<std::string>{"TPU201:5 one-time+discounted", "TPU201:12 host+discounted", "TPU201:14 host+discounted",
                                 "TPU201:17 host+discounted", "TPU201:18 one-time+discounted"});
  // Outside a host module, a function that builds a loader has no role of its own from it.
  auto script = analyze("pkg/run.py",
                        "import torch\n"
                        "from torch.utils.data import DataLoader\n"
                        "def create_loader(ds):\n"
                        "    keep = torch.nonzero(ds.sizes)\n"
                        "    return DataLoader(ds)\n");
  CHECK(placed(script, {"TPU201"}) == std::vector<std::string>{"TPU201:4 unknown"});
}

TEST_CASE("semantic: an evaluation or inference script's code of no other role is evaluation", "[python][semantic]") {
  const std::string script =
      "import torch\n"                                   // 1
      "def process_batch(det, labels):\n"                // 2
      "    return torch.nonzero(det == labels)\n"        // 3
      "def run(model, data):\n"                          // 4
      "    for x in data:\n"                             // 5
      "        process_batch(model(x), x)\n"             // 6
      "def unused_metric(a):\n"                          // 7
      "    return torch.unique(a)\n"                     // 8
      "run(None, [])\n";                                 // 9
  // A top-level function its file does not call (8) takes its role from the modules that do.
  const std::vector<std::string> evaluation{"TPU201:3 eval+discounted", "TPU201:8 unknown"};
  for (const char* path : {"pkg/val_dual.py", "segment/predict.py", "detect.py", "pkg/metrics.py", "tools/vis_utils.py",
                           "utils/loggers/comet/__init__.py"})
    CHECK(placed(analyze(path, script), {"TPU201"}) == evaluation);
  // Named like one but not one: a values module, a detector, a vision model; and a test.
  const std::vector<std::string> script_code{"TPU201:3 one-time+discounted", "TPU201:8 unknown"};
  for (const char* path : {"pkg/values.py", "pkg/detector.py", "pkg/vision.py"})
    CHECK(placed(analyze(path, script), {"TPU201"}) == script_code);
  CHECK(placed(analyze("pkg/test_val.py", script), {"TPU201"}) == std::vector<std::string>{"TPU201:3 test", "TPU201:8 test"});
}

TEST_CASE("semantic: a function that launches a kernel of its file is the hot path, a subscripted call of anything else is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/ops.py",
                      "import torch\n"                                    // 1
                      "import triton\n"                                   // 2
                      "@triton.jit\n"                                     // 3
                      "def add_kernel(x, n):\n"                           // 4
                      "    pass\n"                                        // 5
                      "def add(x):\n"                                     // 6
                      "    keep = torch.nonzero(x)\n"                     // 7
                      "    add_kernel[(1,)](x, 4)\n"                      // 8
                      "    return x\n"                                    // 9
                      "def pick(table, x):\n"                             // 10
                      "    keep = torch.nonzero(x)\n"                     // 11
                      "    return table[0](x)\n");                        // 12
  CHECK(placed(seen, {"TPU201", "TPU112"}) ==
        std::vector<std::string>{"TPU201:7 hot-path", "TPU112:8 hot-path", "TPU201:11 unknown"});
}

TEST_CASE("semantic: Equinox and Haliax transforms trace the functions they decorate", "[python][semantic]") {
  // filter_eval_shape (line 12) only traces for shapes: it compiles and runs nothing.
  const std::string engine =
      "import equinox as eqx\n"                           // 1
      "import haliax as hax\n"                            // 2
      "import jax.numpy as jnp\n"                         // 3
      "@eqx.filter_jit(donate='all')\n"                   // 4
      "def free_pages(table, i):\n"                       // 5
      "    return jnp.nonzero(table)\n"                   // 6
      "@hax.named_jit\n"                                  // 7
      "def step(x):\n"                                    // 8
      "    return jnp.nonzero(x)\n"                       // 9
      "@eqx.filter_eval_shape\n"                          // 10
      "def shape_of(x):\n"                                // 11
      "    return jnp.nonzero(x)\n";                      // 12
  CHECK(placed(analyze("pkg/engine.py", engine), {"TPU210"}) ==
        std::vector<std::string>{"TPU210:6 hot-path", "TPU210:9 hot-path", "TPU210:12 unknown"});
}

TEST_CASE("semantic: a test or benchmark module by its file name wherever it is",
          "[python][semantic]") {
  const std::string script =
      "import torch\n"                                   // 1
      "x = torch.nonzero(torch.ones(3))\n"               // 2
      "for n in [1024, 2048]:\n"                         // 3
      "    q = torch.nonzero(torch.ones(n))\n"           // 4
      "def helper(a):\n"                                 // 5
      "    return torch.unique(a)\n";                    // 6
  // Tests and benchmarks alike: code that checks or times the project.
  for (const char* path : {"benchmarks/cp/test_gdn.py", "test_inference.py", "pkg/ops_test.py", "bench/bench_attn.py",
                           "benchmarks/run.py", "tools/benchmark.py"})
    CHECK(placed(analyze(path, script), {"TPU201"}) ==
          std::vector<std::string>{"TPU201:2 test", "TPU201:4 test", "TPU201:6 test"});
  // Neither: a sweep script's module-level loop is setup like the rest of its module.
  CHECK(placed(analyze("scripts/sweep.py", script), {"TPU201"}) ==
        std::vector<std::string>{"TPU201:2 one-time+discounted", "TPU201:4 one-time+discounted", "TPU201:6 unknown"});
}

TEST_CASE("semantic: a module-level import takes the most demanding context of its names' uses", "[python][semantic]") {
  auto seen = analyze("pkg/kernels.py",
                      "import torch\n"                                     // 1
                      "import triton\n"                                    // 2
                      "import pynvml\n"                                    // 3
                      "import cupy\n"                                      // 4
                      "import GPUtil\n"                                    // 5
                      "@triton.jit\n"                                      // 6
                      "def add_kernel(x):\n"                               // 7
                      "    pass\n"                                         // 8
                      "def parse_args():\n"                                // 9
                      "    return pynvml.nvmlInit()\n"                     // 10
                      "def helper(x):\n"                                   // 11
                      "    return cupy.asarray(x)\n");                     // 12
  // triton: the kernel's decorator; pynvml: argument parsing only; cupy: a helper of no known
  // role; GPUtil: not used, module-level code.
  CHECK(placed(seen, {"TPU501"}) ==
        std::vector<std::string>{"TPU501:2 hot-path", "TPU501:3 one-time", "TPU501:4 unknown", "TPU501:5 one-time"});
}

TEST_CASE("semantic: an optional import whose None fallback the file refuses is not guarded, one with a fallback is",
          "[python][semantic]") {
  const std::string refused =
      "import torch\n"                                                   // 1
      "try:\n"                                                           // 2
      "    from flash_attn import flash_attn_func\n"                     // 3
      "except ImportError:\n"                                            // 4
      "    flash_attn_func = None\n"                                     // 5
      "class Attention(torch.nn.Module):\n"                              // 6
      "    def forward(self, q):\n"                                      // 7
      "        if flash_attn_func is None:\n"                            // 8
      "            raise ImportError('pip install flash-attn')\n"        // 9
      "        return flash_attn_func(q, q, q)\n";                       // 10
  CHECK(placed(analyze("pkg/attn.py", refused), {"TPU501"}) == std::vector<std::string>{"TPU501:3 hot-path"});
  // The same file with a fallback path where the library is missing.
  std::string fallback = refused;
  const std::string raise = "raise ImportError('pip install flash-attn')";
  fallback.replace(fallback.find(raise), raise.size(), "return torch.softmax(q @ q.T, -1) @ q");
  CHECK(placed(analyze("pkg/attn.py", fallback), {"TPU501"}) == std::vector<std::string>{"TPU501:3 guarded+discounted"});
  // A flag that one feature asserts (`assert HAVE_FLASH`) is no None fallback: the rest of the
  // module branches on it, and the import stays guarded.
  const std::string flag =
      "try:\n"                                                           // 1
      "    import flash_attn\n"                                          // 2
      "    HAVE_FLASH = True\n"                                          // 3
      "except ImportError:\n"                                            // 4
      "    HAVE_FLASH = False\n"                                         // 5
      "def grouped_gemm(x):\n"                                           // 6
      "    assert HAVE_FLASH, 'pip install flash-attn'\n"                // 7
      "    return flash_attn.gemm(x)\n";                                 // 8
  CHECK(placed(analyze("pkg/attn.py", flag), {"TPU501"}) == std::vector<std::string>{"TPU501:2 guarded+discounted"});
}

TEST_CASE("semantic: a branch on a refused import's name chooses between two uses of the library, no guard",
          "[python][semantic]") {
  const std::string refused =
      "import torch\n"                                                   // 1
      "try:\n"                                                           // 2
      "    import natten\n"                                              // 3
      "except ImportError:\n"                                            // 4
      "    natten = None\n"                                              // 5
      "class Local(torch.nn.Module):\n"                                  // 6
      "    def forward(self, q):\n"                                      // 7
      "        if natten is None:\n"                                     // 8
      "            raise ModuleNotFoundError('natten is required')\n"    // 9
      "        if natten.has_fused_na():\n"                              // 10
      "            return natten.functional.na2d(q, q, q, 7)\n"          // 11
      "        return natten.functional.na2d_av(q, q, 7)\n";             // 12
  CHECK(placed(analyze("pkg/local.py", refused), {"TPU501", "TPU504"}) ==
        std::vector<std::string>{"TPU501:3 hot-path", "TPU504:11 hot-path", "TPU504:12 hot-path"});
  // With a fallback where the library is missing, the import and the branch on it are guards.
  std::string fallback = refused;
  const std::string raise = "raise ModuleNotFoundError('natten is required')";
  fallback.replace(fallback.find(raise), raise.size(), "return torch.softmax(q @ q.T, -1) @ q");
  CHECK(placed(analyze("pkg/local.py", fallback), {"TPU501", "TPU504"}) ==
        std::vector<std::string>{"TPU501:3 guarded+discounted", "TPU504:11 guarded+discounted",
                                 "TPU504:12 guarded+discounted"});
}

TEST_CASE("semantic: a loop that hands the loss and the optimizer to a call is a training loop, a scheduler handed the "
          "optimizer alone makes none",
          "[python][semantic]") {
  auto seen = analyze("pkg/engine.py",
                      "import torch\n"                                                   // 1
                      "def train_one_epoch(model, loader, optimizer, loss_scaler):\n"    // 2
                      "    for x in loader:\n"                                           // 3
                      "        loss = model(x)\n"                                        // 4
                      "        loss_scaler(loss, optimizer, parameters=model.parameters())\n"  // 5
                      "        torch.cuda.synchronize()\n"                               // 6
                      "def make_schedules(optimizers, steps):\n"                         // 7
                      "    for optimizer in optimizers:\n"                               // 8
                      "        sched = CosineAnnealingLR(optimizer, T_max=steps)\n"      // 9
                      "        keep = torch.nonzero(steps)\n");                          // 10
  CHECK(placed(seen, {"TPU403", "TPU201"}) == std::vector<std::string>{"TPU403:6 loop", "TPU201:10 unknown"});
}

TEST_CASE("semantic: a sampler class is host code when it iterates, a loss's target sampler is the hot path, a model named *Transform too",
          "[python][semantic]") {
  auto seen = analyze("pkg/core/samplers/pseudo_sampler.py",
                      "import torch\n"                                           // 1
                      "class PseudoSampler:\n"                                   // 2
                      "    def sample(self, assign_result, bboxes):\n"           // 3
                      "        return torch.nonzero(assign_result.gt_inds > 0)\n"  // 4
                      "class InfiniteSampler:\n"                                 // 5
                      "    def __iter__(self):\n"                                // 6
                      "        return iter(torch.nonzero(self.w))\n"             // 7
                      "class Weighted(torch.utils.data.Sampler):\n"              // 8
                      "    def indices(self):\n"                                 // 9
                      "        return torch.nonzero(self.w)\n"                   // 10
                      "class DepthTransform(torch.nn.Module):\n"                 // 11
                      "    def forward(self, x):\n"                              // 12
                      "        return torch.nonzero(x)\n"                        // 13
                      "class FlipTransform:\n"                                   // 14
                      "    def __call__(self, x):\n"                             // 15
                      "        return torch.nonzero(x)\n"                        // 16
                      "class RandomSampler:\n"                                   // 17
                      "    def sample(self, n):\n"                               // 18
                      "        return torch.nonzero(self.w)\n");                 // 19
  // A loss's target sampler, handed an assignment (4), is the hot path; one that iterates (7), or
  // derives from torch's Sampler (10), is the host's data path; a model named as a transform (13)
  // is the hot path, a plain transform (16) host code; a sampler of neither (19) has no role of its own.
  CHECK(placed(seen, {"TPU201"}) == std::vector<std::string>{"TPU201:4 hot-path", "TPU201:7 host+discounted",
                                                             "TPU201:10 host+discounted", "TPU201:13 hot-path",
                                                             "TPU201:16 host+discounted", "TPU201:19 unknown"});
}

TEST_CASE("semantic: a dataset's offline preparation, one-off quantization and alternative constructors are one-time code",
          "[python][semantic]") {
  auto seen = analyze("pkg/quant.py",
                      "import torch\n"                                           // 1
                      "class LidarDataset(torch.utils.data.Dataset):\n"          // 2
                      "    def create_groundtruth_database(self, info):\n"       // 3
                      "        return torch.nonzero(info)\n"                     // 4
                      "    def get_lidar(self, i):\n"                            // 5
                      "        return torch.nonzero(self.x[i])\n"                // 6
                      "class GPTQ:\n"                                            // 7
                      "    def fasterquant(self, w):\n"                          // 8
                      "        return torch.nonzero(w)\n"                        // 9
                      "class Quantizer(torch.nn.Module):\n"                      // 10
                      "    def find_params(self, x, weight=False):\n"            // 11
                      "        self.scale = torch.unique(x)\n"                   // 12
                      "    def quant_helper(self, x):\n"                         // 13
                      "        return torch.nonzero(x)\n"                        // 14
                      "class QuantModel:\n"                                      // 15
                      "    @classmethod\n"                                       // 16
                      "    def from_quantized(cls, path, device=None):\n"        // 17
                      "        return cls(torch.argwhere(path))\n");             // 18
  // The dataset's other methods (6) stay host code; a method of no such name (14) has no role of its own.
  const std::pair<uint32_t, Context> expected[] = {{4, Context::OneTime},  {6, Context::Host},     {9, Context::OneTime},
                                                   {12, Context::OneTime}, {14, Context::Unknown}, {18, Context::OneTime}};
  for (const auto& [line, context] : expected) CHECK(at(seen, "TPU201", line).context == context);
}

TEST_CASE("semantic: a trainer's per-epoch hook and a logger's sync are loop code, distributed setup one-time code",
          "[python][semantic]") {
  auto seen = analyze("pkg/main.py",
                      "import torch\n"                                           // 1
                      "class CUDACallback(Callback):\n"                          // 2
                      "    def on_train_epoch_end(self, trainer, module):\n"     // 3
                      "        torch.cuda.synchronize()\n"                       // 4
                      "    def on_fit_start(self, trainer, module):\n"           // 5
                      "        torch.cuda.synchronize()\n"                       // 6
                      "class SmoothedValue:\n"                                   // 7
                      "    def synchronize_between_processes(self):\n"           // 8
                      "        torch.cuda.synchronize()\n"                       // 9
                      "def init_distributed_mode(rank):\n"                       // 10
                      "    torch.cuda.set_device(rank)\n"                        // 11
                      "class CocoEvaluator:\n"                                   // 12
                      "    def synchronize_between_processes(self):\n"           // 13
                      "        torch.cuda.synchronize()\n");                     // 14
  // A hook run when training starts (6) is one-time code; an evaluator's sync (14) is evaluation.
  CHECK(placed(seen, {"TPU403", "TPU402"}) == std::vector<std::string>{"TPU403:4 loop", "TPU403:6 one-time",
                                                                         "TPU403:9 loop", "TPU402:11 one-time",
                                                                         "TPU403:14 eval"});
}

TEST_CASE("semantic: a test script's device guard is test code, a module named *tests.py is a test module", "[python][semantic]") {
  const std::string text =
      "import torch\n"                              // 1
      "if torch.cuda.is_available():\n"              // 2
      "    x = torch.randn(4, device='cuda')\n";     // 3
  CHECK(at(analyze("scripts/testing/env_info.py", text), "TPU401", 3).context == Context::Test);
  CHECK(at(analyze("kernels/gentests.py", text), "TPU401", 3).context == Context::Test);
  CHECK(at(analyze("scripts/env_info.py", text), "TPU401", 3).context == Context::Guarded);
}

TEST_CASE("semantic: an import whose handler imports the same names from another place is a version fallback, no guard",
          "[python][semantic]") {
  const std::string tried = "try:\n    from mmcv.ops.multi_scale_deform_attn import MultiScaleDeformableAttention\n";
  const std::string use = "def attend(x):\n    return MultiScaleDeformableAttention(x)\n";
  // Needed either way (the handler imports it from its old place): not guarded.
  auto fallback = analyze("pkg/models/transformer.py",
                          tried + "except ImportError:\n    from mmcv.cnn.bricks.transformer import MultiScaleDeformableAttention\n" + use);
  CHECK(at(fallback, "TPU501", 2).context == Context::Unknown);
  // An optional import whose handler binds None, or imports the name from another library: guarded.
  auto optional = analyze("pkg/models/transformer.py", tried + "except ImportError:\n    MultiScaleDeformableAttention = None\n" + use);
  CHECK(at(optional, "TPU501", 2).context == Context::Guarded);
  auto other = analyze("pkg/models/transformer.py",
                       tried + "except ImportError:\n    from pkg.layers import MultiScaleDeformableAttention\n" + use);
  CHECK(at(other, "TPU501", 2).context == Context::Guarded);
}

TEST_CASE("semantic: an optimizer's step and a trainer's per-iteration hooks are loop code, what they call too, "
          "run and train hooks one-time, validation hooks evaluation",
          "[python][semantic]") {
  auto seen = analyze("pkg/engine.py",
                      "import torch\n"                                            // 1
                      "from torch.optim import Optimizer\n"                       // 2
                      "def _update(p):\n"                                         // 3
                      "    return torch.nonzero(p)\n"                             // 4
                      "class LARS(Optimizer):\n"                                  // 5
                      "    def __init__(self, params):\n"                         // 6
                      "        torch.cuda.synchronize()\n"                        // 7
                      "    def step(self):\n"                                     // 8
                      "        return _update(self.p)\n"                          // 9
                      "    def load_state_dict(self, sd):\n"                      // 10
                      "        torch.cuda.synchronize()\n"                        // 11
                      "class Pacer:\n"                                            // 12
                      "    def step(self):\n"                                     // 13
                      "        torch.cuda.synchronize()\n"                        // 14
                      "class TimerHook:\n"                                        // 15
                      "    def after_train_iter(self, runner):\n"                 // 16
                      "        torch.cuda.synchronize()\n"                        // 17
                      "    def before_run(self, runner):\n"                       // 18
                      "        torch.cuda.synchronize()\n"                        // 19
                      "    def after_val_epoch(self, runner):\n"                  // 20
                      "        torch.cuda.synchronize()\n"                        // 21
                      "    def before_step(self):\n"                              // 22
                      "        torch.cuda.synchronize()\n");                      // 23
  // The optimizer's helper (4) is loop code, as its step; its constructor (7) and state loading (11)
  // one-time code; a class that is no optimizer has a `step` of no role (14).
  CHECK(placed(seen, {"TPU201", "TPU403"}) ==
        std::vector<std::string>{"TPU201:4 loop", "TPU403:7 one-time", "TPU403:11 one-time", "TPU403:14 unknown",
                                 "TPU403:17 loop", "TPU403:19 one-time", "TPU403:21 eval", "TPU403:23 loop"});
  // A function a training loop's body calls is the step's: the hot path, not the loop.
  auto trained = analyze("pkg/train.py",
                         "import torch\n"                                         // 1
                         "def _shift(x):\n"                                       // 2
                         "    return torch.nonzero(x)\n"                          // 3
                         "def run(model, opt, data):\n"                           // 4
                         "    for x in data:\n"                                   // 5
                         "        model(_shift(x)).sum().backward()\n"            // 6
                         "        opt.step()\n");                                 // 7
  CHECK(placed(trained, {"TPU201"}) == std::vector<std::string>{"TPU201:3 hot-path"});
}

TEST_CASE("semantic: losses and matchers by name, a model's forward variants are the hot path, inference and "
          "evaluation directories are evaluation, benchmark functions tests",
          "[python][semantic]") {
  auto seen = analyze("pkg/heads.py",
                      "import torch\n"                                            // 1
                      "def giou_loss(a, b):\n"                                    // 2
                      "    return torch.nonzero(a)\n"                             // 3
                      "class Head(torch.nn.Module):\n"                            // 4
                      "    def forward_train(self, x):\n"                         // 5
                      "        return torch.nonzero(x)\n"                         // 6
                      "    def losses(self, x):\n"                                // 7
                      "        return torch.nonzero(x)\n"                         // 8
                      "    def instance_inference(self, x):\n"                    // 9
                      "        return torch.nonzero(x)\n"                         // 10
                      "class Boxes:\n"                                            // 11
                      "    def forward_train(self, x):\n"                         // 12
                      "        return torch.nonzero(x)\n"                         // 13
                      "class EmbeddingLoss:\n"                                    // 14
                      "    def __init__(self):\n"                                 // 15
                      "        torch.cuda.synchronize()\n"                        // 16
                      "    def __call__(self, x):\n"                              // 17
                      "        return torch.nonzero(x)\n"                         // 18
                      "class Matcher:\n"                                          // 19
                      "    def __call__(self, x):\n"                              // 20
                      "        return torch.nonzero(x)\n"                         // 21
                      "def benchmark_nms(x):\n"                                   // 22
                      "    return torch.nonzero(x)\n"                             // 23
                      "def lossy(x):\n"                                           // 24
                      "    return torch.nonzero(x)\n");                           // 25
  // A class that is no model has forward variants of no role (13); a name that only begins like a
  // loss is none (25).
  CHECK(placed(seen, {"TPU201", "TPU403"}) ==
        std::vector<std::string>{"TPU201:3 hot-path", "TPU201:6 hot-path", "TPU201:8 hot-path",
                                 "TPU201:10 eval+discounted", "TPU201:13 unknown", "TPU403:16 one-time",
                                 "TPU201:18 hot-path", "TPU201:21 hot-path", "TPU201:23 test",
                                 "TPU201:25 unknown"});
  // In an evaluation module, a method of no role of its own (a top-level function the file does not
  // call takes its role from the modules that use it).
  const std::string helper = "import torch\nclass Features:\n    def extract(self, x):\n        return torch.nonzero(x)\n";
  CHECK(at(analyze("pkg/eval/utils.py", helper), "TPU201", 4).context == Context::Eval);
  CHECK(at(analyze("pkg/evaluation/utils.py", helper), "TPU201", 4).context == Context::Eval);
  CHECK(at(analyze("pkg/panoptic/post_processing.py", helper), "TPU201", 4).context == Context::Eval);
  CHECK(at(analyze("pkg/evaluator_utils/utils.py", helper), "TPU201", 4).context == Context::Unknown);
  CHECK(at(analyze("pkg/posterior.py", helper), "TPU201", 4).context == Context::Unknown);
}

TEST_CASE("semantic: a loop that calls a compiled train step is a training loop, seeding is one-time code, an input "
          "pipeline module host code, a branch on an optional GPU library a guard",
          "[python][semantic]") {
  auto seen = analyze("pkg/train.py",
                      "import jax\n"                                                // 1
                      "import torch\n"                                              // 2
                      "def fit(state, batches, train_step):\n"                      // 3
                      "    p_train_step = jax.pmap(train_step)\n"                   // 4
                      "    for batch in batches:\n"                                 // 5
                      "        state, metrics = p_train_step(state, batch)\n"       // 6
                      "        print(jax.device_get(metrics))\n"                    // 7
                      "def drive(state, batches, eval_step):\n"                     // 8
                      "    for batch in batches:\n"                                 // 9
                      "        print(jax.device_get(eval_step(state, batch)))\n"    // 10
                      "def fix_random_seeds(seed):\n"                               // 11
                      "    torch.cuda.manual_seed_all(seed)\n"                      // 12
                      "def embed(model, x, BitsandbytesPrecision):\n"               // 13
                      "    if isinstance(model.precision, BitsandbytesPrecision):\n"  // 14
                      "        return torch.nonzero(x)\n"                           // 15
                      "    return x\n");                                            // 16
  // The loop around another compiled step is no training loop: its fetch (10) is not reported.
  CHECK(placed(seen, {"TPU605"}) == std::vector<std::string>{"TPU605:7 loop"});
  CHECK(at(seen, "TPU407", 12).context == Context::OneTime);
  CHECK(at(seen, "TPU201", 15).context == Context::Guarded);
  const std::string pipeline = "import torch\nclass Batches:\n    def pad(self, x):\n        return torch.nonzero(x)\n";
  CHECK(at(analyze("lra/image/input_pipeline.py", pipeline), "TPU201", 4).context == Context::Host);
  CHECK(at(analyze("lra/image/pipeline.py", pipeline), "TPU201", 4).context == Context::Unknown);
}

TEST_CASE("semantic: a dataset's result formatting and what only it calls are evaluation, the rest of the dataset host "
          "code; an MMCV module is a model; a head's loss targets are the hot path",
          "[python][semantic]") {
  auto seen = analyze("pkg/datasets/nus.py",
                      "import torch\n"                                                 // 1
                      "from mmcv.runner import BaseModule\n"                           // 2
                      "from torch.utils.data import Dataset\n"                         // 3
                      "def box_to_cam(box):\n"                                         // 4
                      "    return torch.nonzero(box)\n"                                 // 5
                      "class NusDataset(Dataset):\n"                                    // 6
                      "    def __getitem__(self, i):\n"                                 // 7
                      "        return self.load(i)\n"                                   // 8
                      "    def load(self, i):\n"                                        // 9
                      "        return torch.nonzero(self.x[i])\n"                       // 10
                      "    def format_results(self, results):\n"                        // 11
                      "        return [self.convert(r) for r in results]\n"             // 12
                      "    def convert(self, r):\n"                                     // 13
                      "        return box_to_cam(torch.nonzero(r))\n"                   // 14
                      "    def shared(self, r):\n"                                      // 15
                      "        return torch.nonzero(r)\n"                               // 16
                      "    def evaluate(self, results):\n"                              // 17
                      "        return self.shared(results)\n"                           // 18
                      "    def augment(self, x):\n"                                     // 19
                      "        return self.shared(x)\n"                                 // 20
                      "class LSSTransform(BaseModule):\n"                               // 21
                      "    def get_geometry(self, x):\n"                                // 22
                      "        return torch.nonzero(x)\n"                               // 23
                      "    def forward(self, x):\n"                                     // 24
                      "        return self.get_geometry(x)\n"                           // 25
                      "class Head:\n"                                                   // 26
                      "    def get_targets_single(self, gt):\n"                         // 27
                      "        return torch.nonzero(gt)\n");                            // 28
  // What only the formatting calls (5, 14) is evaluation; a method the data path calls (10, through
  // __getitem__), or both it and evaluation (16, from `augment` and `evaluate`), is host code; a layer
  // named as a transform is a model when it derives from MMCV's BaseModule (23).
  CHECK(placed(seen, {"TPU201"}) ==
        std::vector<std::string>{"TPU201:5 eval+discounted", "TPU201:10 host+discounted", "TPU201:14 eval+discounted",
                                 "TPU201:16 host+discounted", "TPU201:23 hot-path",
                                 "TPU201:28 hot-path"});
  const std::string helper = "import torch\nclass Features:\n    def extract(self, x):\n        return torch.nonzero(x)\n";
  CHECK(at(analyze("point_e/evals/pointnet2_utils.py", helper), "TPU201", 4).context == Context::Eval);
  // A data loader's method the training loop calls is the host's data path, not the step.
  auto loader = analyze("train.py",
                        "import torch\n"                                      // 1
                        "class DistributedDataLoader:\n"                      // 2
                        "    def next_batch(self):\n"                         // 3
                        "        return torch.nonzero(self.tokens).cuda()\n"  // 4
                        "def main(model, opt, loader):\n"                     // 5
                        "    for step in range(10):\n"                        // 6
                        "        x = loader.next_batch()\n"                   // 7
                        "        model(x).backward()\n"                       // 8
                        "        opt.step()\n");                              // 9
  CHECK(placed(loader, {"TPU201"}) == std::vector<std::string>{"TPU201:4 host+discounted"});
}

TEST_CASE("semantic: a head's private target builder is the hot path, a model's build one-time code, a *_benchmark "
          "module a test",
          "[python][semantic]") {
  auto seen = analyze("pkg/heads.py",
                      "import torch\n"                                       // 1
                      "class Head:\n"                                        // 2
                      "    def _get_targets_single(self, gt):\n"             // 3
                      "        return torch.nonzero(gt)\n"                   // 4
                      "    def _target_cache(self, gt):\n"                   // 5
                      "        return torch.nonzero(gt)\n"                   // 6
                      "class Llama:\n"                                       // 7
                      "    @staticmethod\n"                                  // 8
                      "    def build(ckpt):\n"                               // 9
                      "        torch.cuda.set_device(0)\n");                 // 10
  CHECK(placed(seen, {"TPU201", "TPU402"}) == std::vector<std::string>{"TPU201:4 hot-path", "TPU201:6 unknown",
                                                                        "TPU402:10 one-time"});
  const std::string script = "import torch\nx = torch.nonzero(torch.ones(3))\n";
  CHECK(at(analyze("megablocks/ops/matmul_benchmark.py", script), "TPU201", 2).context == Context::Test);
  CHECK(at(analyze("megablocks/ops/benchmarking.py", script), "TPU201", 2).context == Context::Test);
  CHECK(at(analyze("megablocks/ops/matmul.py", script), "TPU201", 2).context == Context::OneTime);
}

TEST_CASE("semantic: a loop calling a compiled function that takes gradients is a training loop", "[python][semantic]") {
  auto seen = analyze("pkg/train.py",
                      "import functools\n"                                        // 1
                      "import jax\n"                                              // 2
                      "def main(data, params):\n"                                 // 3
                      "    @functools.partial(jax.jit, donate_argnums=(0,))\n"    // 4
                      "    def update_fn(params, batch):\n"                       // 5
                      "        def loss_fn(p):\n"                                 // 6
                      "            return (p * batch).sum()\n"                    // 7
                      "        loss, grads = jax.value_and_grad(loss_fn)(params)\n"  // 8
                      "        return params - grads, loss\n"                     // 9
                      "    for batch in data:\n"                                  // 10
                      "        params, loss = update_fn(params, batch)\n"         // 11
                      "        print(jax.device_get(loss))\n"                     // 12
                      "def run(data, params):\n"                                  // 13
                      "    @jax.jit\n"                                            // 14
                      "    def apply(params, batch):\n"                           // 15
                      "        return params * batch\n"                           // 16
                      "    for batch in data:\n"                                  // 17
                      "        print(jax.device_get(apply(params, batch)))\n");   // 18
  CHECK(at(seen, "TPU605", 12).context == Context::Loop);
  // Compiled but taking no gradients: an inference loop, not a training loop.
  CHECK(at(seen, "TPU605", 18).context != Context::Loop);
}

TEST_CASE("semantic: a loop calling a helper that runs the step itself is a training loop, one calling a whole fit "
          "is not",
          "[python][semantic]") {
  auto seen = analyze("train.py",
                      "import torch\n"                                              // 1
                      "def train_one_epoch(model, loader, optimizer):\n"            // 2
                      "    def _backward(_loss):\n"                                 // 3
                      "        _loss.backward()\n"                                  // 4
                      "        optimizer.step()\n"                                  // 5
                      "    for x, y in loader:\n"                                   // 6
                      "        loss = torch.nn.functional.mse_loss(model(x), y)\n"  // 7
                      "        _backward(loss)\n"                                   // 8
                      "        model.cuda()\n"                                      // 9
                      "def fit(model, loader, optimizer):\n"                        // 10
                      "    for x, y in loader:\n"                                   // 11
                      "        model(x).sum().backward()\n"                         // 12
                      "        optimizer.step()\n"                                  // 13
                      "def sweep(model, loaders, optimizer):\n"                     // 14
                      "    for loader in loaders:\n"                                // 15
                      "        fit(model, loader, optimizer)\n"                     // 16
                      "        model.cuda()\n");                                    // 17
  CHECK(at(seen, "TPU401", 9).context == Context::Loop);
  // `fit` runs its own training loop: a loop over whole fits is no step loop.
  CHECK(at(seen, "TPU401", 17).context != Context::Loop);
}

TEST_CASE("semantic: a name holding a guard's truth guards a branch on it, a name holding anything else does not",
          "[python][semantic]") {
  auto seen = analyze("pkg/mole.py",
                      "import jax\n"                                                            // 1
                      "import jax.numpy as jnp\n"                                               // 2
                      "def mix(x, sizes, use_pallas=False):\n"                                  // 3
                      "    use_kernel = (use_pallas and jax.default_backend() == 'gpu')\n"      // 4
                      "    if use_kernel:\n"                                                    // 5
                      "        return jnp.nonzero(x)\n"                                         // 6
                      "    ready = sizes is not None and x.ndim == 2\n"                         // 7
                      "    if ready:\n"                                                         // 8
                      "        return jnp.nonzero(x)\n"                                         // 9
                      "    device = 'gpu' if use_pallas else 'cpu'\n"                           // 10
                      "    if device:\n"                                                        // 11
                      "        return jnp.nonzero(x)\n"                                         // 12
                      "    return x\n");                                                        // 13
  CHECK(at(seen, "TPU210", 6).context == Context::Guarded);
  CHECK(at(seen, "TPU210", 9).context != Context::Guarded);
  // A value chosen by a guard is no truth of one: `if device:` is not a branch on the device.
  CHECK(at(seen, "TPU210", 12).context != Context::Guarded);
}

TEST_CASE("semantic: a checkpoint conversion module's code of no other role is one-time code", "[python][semantic]") {
  const std::string helper = "import torch\ndef compare(a, b, mask):\n    return a[mask]\n";
  for (const char* path : {"pkg/checkpoint_conversion/utils/hf_utils.py", "tools/convert_weights.py",
                           "pkg/llama_converter.py", "scripts/convert_hf_ckpt.py"}) {
    INFO(path);
    Seen one_time = at(analyze(path, helper), "TPU204", 3);
    CHECK(one_time.context == Context::OneTime);
    CHECK(one_time.discounted);
  }
  for (const char* path : {"pkg/conversation/utils.py", "pkg/models/convnext.py", "pkg/scalar_conversion_in_step.py"}) {
    INFO(path);
    CHECK(at(analyze(path, helper), "TPU204", 3).context == Context::Unknown);
  }
}

TEST_CASE("semantic: a branch on a string that names a GPU-only implementation is guarded, on another string it is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/select.py",
                      "import torch\n"                                                   // 1
                      "def build(cfg, x):\n"                                             // 2
                      "    if cfg.attn_implementation == 'flash_attention_2':\n"         // 3
                      "        return torch.nonzero(x)\n"                                // 4
                      "    elif cfg.quantization.startswith('te_'):\n"                   // 5
                      "        return torch.nonzero(x)\n"                                // 6
                      "    if cfg.split == 'test':\n"                                    // 7
                      "        return torch.nonzero(x)\n"                                // 8
                      "    te_loss = x.sum()\n"                                          // 9
                      "    if te_loss is not None:\n"                                    // 10
                      "        return torch.nonzero(x)\n"                                // 11
                      "    return x\n");                                                 // 12
  CHECK(at(seen, "TPU201", 4).context == Context::Guarded);
  CHECK(at(seen, "TPU201", 6).context == Context::Guarded);
  CHECK(at(seen, "TPU201", 8).context != Context::Guarded);
  // `te_` as an identifier is as often a test split's: only a string names the library.
  CHECK(at(seen, "TPU201", 11).context != Context::Guarded);
}

TEST_CASE("semantic: a module-level import its file uses only where a guard holds is guarded, one used elsewhere too is not",
          "[python][semantic]") {
  auto with = [](const std::string& tail) {
    return analyze("pkg/mix.py",
                   "import jax\n"                                                      // 1
                   "from jax.experimental.pallas import triton as plt\n"               // 2
                   "def gpu_load(x):\n"                                                // 3
                   "    return plt.load(x)\n"                                          // 4
                   "def mix(x, use_pallas=False):\n"                                   // 5
                   "    use_kernel = use_pallas and jax.default_backend() == 'gpu'\n"  // 6
                   "    if use_kernel:\n"                                              // 7
                   "        return plt.load(x) + gpu_load(x)\n"                        // 8
                   "    return x\n" +                                                  // 9
                       tail);
  };
  Seen only_guarded = at(with(""), "TPU501", 2);
  CHECK(only_guarded.context == Context::Guarded);
  CHECK(only_guarded.discounted);
  Seen also_plain = at(with("def plain(x):\n    return plt.load(x)\n"), "TPU501", 2);
  CHECK(also_plain.context != Context::Guarded);
  CHECK_FALSE(also_plain.discounted);
}

TEST_CASE("semantic: a function's own attribute cache is no guard, whatever the function's name", "[python][semantic]") {
  auto seen = analyze("pkg/interface.py",
                      "import torch\n"                                                  // 1
                      "def _flash_attn_bwd(q, key):\n"                                  // 2
                      "    if key not in _flash_attn_bwd.compile_cache:\n"              // 3
                      "        _flash_attn_bwd.compile_cache[key] = torch.nonzero(q)\n"  // 4
                      "    if flash_attn_cache is not None:\n"                          // 5
                      "        return torch.nonzero(q)\n"                               // 6
                      "    return q\n"                                                  // 7
                      "_flash_attn_bwd.compile_cache = {}\n");                          // 8
  CHECK(at(seen, "TPU201", 4).context != Context::Guarded);
  // A name that is no function of the file keeps naming the library.
  CHECK(at(seen, "TPU201", 6).context == Context::Guarded);
}

TEST_CASE("semantic: a class beside its TPU namesake is another device's, the base the TPU class derives from is not",
          "[python][semantic]") {
  auto seen = analyze("pkg/replicator.py",
                      "import tensorflow as tf\n"                                  // 1
                      "class Replicator(tf.distribute.MirroredStrategy):\n"        // 2
                      "    pass\n"                                                 // 3
                      "class TpuReplicator(tf.distribute.TPUStrategy):\n"          // 4
                      "    pass\n"                                                 // 5
                      "class Mirror(tf.distribute.MirroredStrategy):\n"            // 6
                      "    pass\n");                                               // 7
  CHECK(at(seen, "TPU416", 2).context == Context::Guarded);
  CHECK(at(seen, "TPU416", 2).discounted);
  // No TPU namesake: kept.
  CHECK(at(seen, "TPU416", 6).context != Context::Guarded);
  auto shared = analyze("pkg/strategies.py",
                        "import tensorflow as tf\n"                                // 1
                        "class Replicator(tf.distribute.MirroredStrategy):\n"      // 2
                        "    pass\n"                                               // 3
                        "class TpuReplicator(Replicator):\n"                       // 4
                        "    pass\n");                                             // 5
  CHECK(at(shared, "TPU416", 2).context != Context::Guarded);
}

TEST_CASE("semantic: a class the file builds only in guarded code is guarded code, one it also builds elsewhere is not",
          "[python][semantic]") {
  const std::string classes =
      "import torch\n"                                                   // 1
      "class TeQuant:\n"                                                 // 2
      "    def __init__(self, cfg):\n"                                   // 3
      "        self.recipe = TeQuant._recipe(cfg)\n"                     // 4
      "    @staticmethod\n"                                              // 5
      "    def _recipe(cfg):\n"                                          // 6
      "        return torch.nonzero(cfg)\n"                              // 7
      "    def scale(self, x):\n"                                        // 8
      "        return torch.nonzero(x)\n"                                // 9
      "class Plain:\n"                                                   // 10
      "    def __init__(self, x):\n"                                     // 11
      "        self.n = torch.nonzero(x)\n";                             // 12
  auto guarded = analyze("pkg/quant.py", classes +
                                             "def build(cfg, x):\n"                                   // 13
                                             "    if cfg.quantization.startswith('te_'):\n"           // 14
                                             "        return TeQuant(cfg)\n"                          // 15
                                             "    return Plain(x)\n");                                // 16
  CHECK(at(guarded, "TPU201", 7).context == Context::Guarded);
  CHECK(at(guarded, "TPU201", 9).context == Context::Guarded);
  CHECK(at(guarded, "TPU201", 12).context != Context::Guarded);
  // Built on the unguarded path too: its code runs there.
  auto both = analyze("pkg/quant.py", classes +
                                          "def build(cfg, x):\n"                                      // 13
                                          "    if cfg.quantization.startswith('te_'):\n"              // 14
                                          "        return TeQuant(cfg)\n"                             // 15
                                          "    return TeQuant(x)\n");                                 // 16
  CHECK(at(both, "TPU201", 7).context != Context::Guarded);
  // A method other code calls by name, unguarded, keeps its role.
  auto called = analyze("pkg/quant.py", classes +
                                            "def build(cfg, x, q):\n"                                 // 13
                                            "    if cfg.quantization.startswith('te_'):\n"            // 14
                                            "        return TeQuant(cfg)\n"                           // 15
                                            "    return q.scale(x)\n");                               // 16
  CHECK(at(called, "TPU201", 7).context == Context::Guarded);
  CHECK(at(called, "TPU201", 9).context != Context::Guarded);
}
