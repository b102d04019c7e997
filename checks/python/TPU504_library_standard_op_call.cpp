// TPU504: a call of a library function whose C++/CUDA kernel PyTorch/XLA does not lower and that is
// a standard op with a TPU replacement (torchvision.ops.roi_align, nms, deform_conv2d; detectron2.layers).
// User docs: docs/checks/TPU504.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

class LibraryStandardOpCall final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    for (const auto& [name, role] : pyhelp::called_or_subclassed(call))
      pyhelp::report_library_standard_op(name, "function", role, ctx);
  }
};

const LibraryStandardOpCall kCheck;

}  // namespace

extern const CheckDef TPU504_library_standard_op_call{
    .info = {
        .id = "TPU504",
        .name = "library-standard-op-call",
        .summary = "a call of a library op PyTorch/XLA does not lower (torchvision.ops.roi_align, nms, deform_conv2d; "
                   "detectron2.layers): a standard op to swap for its TPU replacement",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {4, 24},
        .device_code_only = true,
        .doc = {
            .what = "A call of one of the functions of checks/data/library_standard_ops.tsv: torchvision's `nms`, "
                    "`batched_nms`, `roi_align`, `roi_pool`, `ps_roi_align`, `ps_roi_pool`, `deform_conv2d`, and "
                    "detectron2's `nms`, `batched_nms`, `nms_rotated`, `batched_nms_rotated`, `roi_align`, "
                    "`deform_conv`, `modulated_deform_conv`, under any import alias and one submodule deeper "
                    "(`torchvision.ops.boxes.nms`). Each is the standard op of checks/data/standard_kernels.tsv "
                    "the message names, with its replacement.",
            .why = "These ops are C++/CUDA kernels registered for the CPU and CUDA only. PyTorch/XLA has no "
                   "lowering for them: on an XLA device each call copies its inputs to the host, runs on the CPU "
                   "and copies the result back, every step, and splits the step's graph around it.",
            .example = "from torchvision.ops import roi_align\n\n"
                       "def forward(self, features, boxes):\n"
                       "    return roi_align(features, boxes, output_size=7, spatial_scale=0.25)",
            .use_instead = "The replacement the finding names: ROI align as bilinear gathers over a fixed sampling "
                           "grid, deformable convolution as gathers and a matmul, a fixed-size NMS in tensor ops "
                           "(or NMS on the host after the model, in evaluation).",
            .effort = "Medium, the op's hours from checks/data/standard_kernels.tsv (swapping in the replacement and "
                      "validating its numerics). The replacement is written once for the project: of the findings "
                      "of one op (this check's), the most expensive is priced and the others cost nothing. The "
                      "verdict weighs it as a standard op's kernel in the project.",
            .heuristic = "The callee must resolve through the file's imports to a row of the table; the scanned "
                         "project's own package (scanning torchvision or detectron2) is not reported. Only device "
                         "code decides: a call in evaluation, post-processing, host or one-time code (NMS after "
                         "the model) is discounted.",
            .references = {"https://docs.pytorch.org/vision/stable/ops.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
