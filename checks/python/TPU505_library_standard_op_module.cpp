// TPU505: a library module (a class) whose forward runs a C++/CUDA kernel PyTorch/XLA does not
// lower and that is a standard op with a TPU replacement (torchvision.ops.RoIAlign,
// DeformConv2d; detectron2.layers.ROIAlign), built or subclassed by the project.
// User docs: docs/checks/TPU505.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

class LibraryStandardOpModule final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::ClassDefinition};
    return k;
  }

  // A module built, or `class RotatedROIAlign(ROIAlignRotated):`, which inherits the kernel.
  void check(Node node, python::PythonContext& ctx) const override {
    for (const auto& [name, role] : pyhelp::called_or_subclassed(node))
      pyhelp::report_library_standard_op(name, "module", role, ctx);
  }
};

const LibraryStandardOpModule kCheck;

}  // namespace

extern const CheckDef TPU505_library_standard_op_module{
    .info = {
        .id = "TPU505",
        .name = "library-standard-op-module",
        .summary = "a library module whose op PyTorch/XLA does not lower (torchvision.ops.RoIAlign, DeformConv2d; "
                   "detectron2.layers.ROIAlign), built or subclassed: a standard op to swap for its TPU replacement",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {4, 24},
        .doc = {
            .what = "Building or subclassing one of the modules of checks/data/library_standard_ops.tsv: "
                    "torchvision's `RoIAlign`, `RoIPool`, `PSRoIAlign`, `PSRoIPool`, `MultiScaleRoIAlign`, "
                    "`DeformConv2d`, and detectron2's `ROIAlign`, `ROIAlignRotated`, `DeformConv`, "
                    "`ModulatedDeformConv`, under any import alias. Each is the standard op of "
                    "checks/data/standard_kernels.tsv the message names, with its replacement.",
            .why = "The module's forward calls a C++/CUDA kernel registered for the CPU and CUDA only; PyTorch/XLA "
                   "has no lowering for it, so on an XLA device each forward copies its inputs to the host, runs "
                   "on the CPU and copies the result back. A module is built once (in a constructor) and run in "
                   "every forward, so where it is built says nothing of where it runs: unlike TPU504's calls, "
                   "its findings are not discounted in one-time code, only when guarded.",
            .example = "from detectron2.layers import ROIAlign\n\n"
                       "class Head(nn.Module):\n"
                       "    def __init__(self):\n"
                       "        super().__init__()\n"
                       "        self.pool = ROIAlign((7, 7), spatial_scale=1 / 16, sampling_ratio=0)",
            .use_instead = "The replacement the finding names: ROI align as bilinear gathers over a fixed sampling "
                           "grid, deformable convolution as gathers and a matmul.",
            .effort = "Medium, the op's hours from checks/data/standard_kernels.tsv (swapping in the replacement and "
                      "validating its numerics). The replacement is written once for the project: of the findings "
                      "of one op (this check's), the most expensive is priced and the others cost nothing. The "
                      "verdict weighs it as a standard op's kernel in the project.",
            .heuristic = "The class must resolve through the file's imports to a row of the table; the scanned "
                         "project's own package (scanning torchvision or detectron2) is not reported.",
            .references = {"https://docs.pytorch.org/vision/stable/ops.html",
                           "https://detectron2.readthedocs.io/en/latest/modules/layers.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
