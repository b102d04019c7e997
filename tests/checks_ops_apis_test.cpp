// Per-finding severity and effort of the TPU3xx/TPU4xx checks, which the fixture runner (it
// matches lines and IDs only) does not see: a guarded CUDA call is a warning, a table row's
// hours scale its finding, enabling x64 costs more than one dtype.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "python_check_run.h"

using namespace tpulint;

namespace {

std::vector<Finding> run(std::string_view id, const std::string& code) {
  return testing::run_python_check(id, code).findings;
}

}  // namespace

TEST_CASE("a CUDA call that raises is an error, and a warning where a CUDA test guards it", "[checks][ops-apis]") {
  auto f = run("TPU403",
               "import torch\n"
               "torch.cuda.synchronize()\n"
               "if torch.cuda.is_available():\n"
               "    torch.cuda.synchronize()\n"
               "if not torch.cuda.is_available():\n"
               "    pass\n"
               "else:\n"
               "    torch.cuda.synchronize()\n");
  REQUIRE(f.size() == 3);
  CHECK(f[0].severity == Severity::Error);
  CHECK(f[1].severity == Severity::Warning);
  CHECK(f[1].message.find("a TPU host skips it") != std::string::npos);
  CHECK(f[2].severity == Severity::Warning);
}

TEST_CASE("torch.cuda table rows set the severity: raises is an error, a default value a warning",
          "[checks][ops-apis]") {
  auto f = run("TPU406",
               "import torch\n"
               "a = torch.cuda.memory_allocated()\n"
               "free, total = torch.cuda.mem_get_info()\n"
               "torch.cuda.empty_cache()\n");
  REQUIRE(f.size() == 2);
  CHECK(f[0].severity == Severity::Warning);
  CHECK(f[0].message == "'torch.cuda.memory_allocated' returns 0 on a TPU host");
  CHECK(f[1].severity == Severity::Error);
}

TEST_CASE("TPU301 findings take their hours from the op table", "[checks][ops-apis]") {
  auto f = run("TPU301",
               "import torch\n"
               "h = torch.hypot(x, y)\n"
               "s = torch.fft.rfft(x)\n"
               "m = torch.median(x)\n");
  REQUIRE(f.size() == 3);
  CHECK(f[0].effort == EffortClass::Low);
  CHECK(f[0].hours.low == 0.25);
  CHECK(f[0].hours.high == 1);
  CHECK(f[1].effort == EffortClass::Medium);
  CHECK(f[1].hours.high == 16);
  CHECK(f[2].effort == EffortClass::Medium);
  CHECK(f[2].hours.low == 1);
  CHECK(f[1].message == "'torch.fft.rfft' has no XLA lowering: 'aten::_fft_r2c' falls back to the CPU");
}

TEST_CASE("enabling JAX x64 costs more than one 64-bit dtype", "[checks][ops-apis]") {
  auto f = run("TPU305",
               "import jax\n"
               "import jax.numpy as jnp\n"
               "jax.config.update('jax_enable_x64', True)\n"
               "x = jnp.zeros(3, dtype=jnp.float64)\n");
  REQUIRE(f.size() == 2);
  CHECK(f[0].effort == EffortClass::Medium);
  CHECK(f[1].effort == EffortClass::Low);
}

TEST_CASE("nn.DataParallel is a medium-effort warning, DDP device_ids a low-effort error", "[checks][ops-apis]") {
  auto f = run("TPU411",
               "import torch\n"
               "from torch.nn.parallel import DistributedDataParallel as DDP\n"
               "m = DDP(model, device_ids=[rank])\n"
               "m2 = torch.nn.DataParallel(model)\n");
  REQUIRE(f.size() == 2);
  CHECK(f[0].severity == Severity::Error);
  CHECK(f[0].effort == EffortClass::Low);
  CHECK(f[1].severity == Severity::Warning);
  CHECK(f[1].effort == EffortClass::Medium);
}

TEST_CASE("NCCL, DDP device ids and SyncBatchNorm behind a CUDA test are warnings", "[checks][ops-apis]") {
  auto nccl = run("TPU410",
                  "import torch\n"
                  "import torch.distributed as dist\n"
                  "dist.init_process_group('nccl')\n"
                  "if torch.cuda.is_available():\n"
                  "    dist.init_process_group('nccl')\n");
  REQUIRE(nccl.size() == 2);
  CHECK(nccl[0].severity == Severity::Error);
  CHECK(nccl[1].severity == Severity::Warning);
  auto bn = run("TPU413",
                "import torch\n"
                "if sync_bn and cuda:\n"
                "    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)\n");
  REQUIRE(bn.size() == 1);
  CHECK(bn[0].severity == Severity::Warning);
}
