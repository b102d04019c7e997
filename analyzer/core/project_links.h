// The project-wide pass over every analyzed file's links (FileLinks), after the analysis of all
// files and before the report: code the project reaches only through guards is guarded code,
// whichever module the guard is in.
//
// - A file is optional when the project's core code uses it (imports it, or loads it as a native
//   source, itself or as a source of an extension module it imports) and every such use is
//   guarded: in a guarded branch, in a function reached only through guards, or in a file that
//   is itself optional. whisper's Triton kernels, imported only under `if x.is_cuda: try:`, and
//   a CUDA extension imported in `try: ... except ImportError:` are optional.
// - A top-level function is guarded when its own file never uses it outside a guard, other core
//   files refer to it, and every such reference is guarded.
//
// - A top-level function its own file neither uses nor gives a role takes the role of its uses in
//   the other modules' core code (core/role_vote.h): a helper only Datasets call is host code, one
//   only handed to `jax.jit` elsewhere is the hot path. Its findings of no context take that role,
//   and are discounted where it discounts their check (discounts_finding).
//
// - A launch `name[grid](...)` of a name another module of the project defines (FileLinks::Launch)
//   is reported when that module defines it as a kernel (FileLinks::Function::kernel) or re-exports
//   it from one: its finding joins its file's. Other launches are dropped. Joined on every scan,
//   cached results included, so a launch follows its kernel's module.
//
// - A finding in code only a model's off-by-default option runs (Finding::optional_option) is
//   discounted, keeping its context, unless a file of the project passes that option a value
//   that may turn it on (FileLinks::options_turned_on): `ComputeLoss(model, overlap=overlap)`.
//
// Findings in optional files and guarded functions, and findings whose related files (an
// extension's sources) are all optional, take the guarded context and are discounted
// (discounts_finding). Uses from code that does not decide the verdict (tests, examples, by path
// weight) neither make a file optional nor keep it from being so.
#pragma once

#include <span>
#include <string>

#include "core/scan.h"
#include "core/plan.h"
#include "core/registry.h"
#include "core/score.h"

namespace tpulint {

// The names that make a module an alternative backend's (CodeRoleFacts): its Python modules are
// optional when the project has the default implementation beside them.
struct BackendNames {
  // Lower-case names of directories that hold an alternative accelerator or kernel backend (`npu`,
  // `rocm`, `tilelang`): beside a module of the same name in the directory holding the backend's,
  // or the one above.
  std::span<const std::string> dirs;
  // Lower-case words of a module's file name that name a GPU backend (`gpu`, `cuda`) and that name a
  // TPU one (`tpu`, `xla`): `gpu_attention.py` beside `tpu_attention.py`, `cache_gpu_kernel.py`
  // beside `cache_tpu_kernel.py` (a dispatch picks one by device).
  std::span<const std::string> gpu_words, tpu_words;
};
void link_project(AnalyzedFiles& files, const PathWeights& weights, const Registry& registry,
                  const BackendNames& backends = {});

// A project file that only optional native files include is optional too: the headers of a CUDA
// extension that only guarded code builds (HRNet's InPlace-ABN `.cuh`, optimum-quanto's AWQ and
// Marlin headers under the extension that `if torch.cuda.is_available():` imports). A native file is
// optional when it has findings and all of them are guarded and discounted; a file no file includes
// keeps its own. Its findings take the guarded context and are discounted. Run on the report's
// findings (build_report), where every file's includes are at hand, so that merged shards agree with
// a scan. `files` by path.
void guard_headers_of_optional_sources(std::vector<Finding>& findings, std::span<const FileIncludes> files);

}  // namespace tpulint
