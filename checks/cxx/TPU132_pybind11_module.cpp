// TPU132: a native Python extension module (`PYBIND11_MODULE(name, m)`).
// User docs: docs/checks/TPU132.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

class Pybind11Module final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::MacroUseFact& m : facts.macro_uses) {
      if (m.name != "PYBIND11_MODULE" || m.arguments.empty()) continue;
      // torch.utils.cpp_extension passes the module name as -DTORCH_EXTENSION_NAME=...
      const std::string& name = m.arguments[0];
      std::string shown = name == "TORCH_EXTENSION_NAME" ? "the torch extension" : "'" + name + "'";
      ctx.report(m.span,
                 fmt::format("native extension module {} exposes C++/CUDA code to Python", shown),
                 "port what its functions compute to torch/JAX ops or Pallas kernels, then drop the module from "
                 "the TPU build",
                 name);
    }
  }
};

const Pybind11Module kCheck;

}  // namespace

extern const CheckDef TPU132_pybind11_module{
    .info = {
        .id = "TPU132",
        .name = "pybind11-extension-module",
        .summary = "native Python extension module (`PYBIND11_MODULE`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.5, 2},
        .doc = {
            .what = "A `PYBIND11_MODULE(name, m)` block: the entry point of a compiled Python extension, often "
                    "a PyTorch C++/CUDA extension (`name` is then `TORCH_EXTENSION_NAME`).",
            .why = "The module is how Python reaches the project's kernels. Its functions usually take tensors "
                   "and launch CUDA kernels; on a TPU those calls must go to framework ops or Pallas kernels "
                   "instead, and the module (and its CUDA build) must be optional for the TPU build.",
            .example = "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"forward\", &roi_align_forward, "
                       "\"RoIAlign forward (CUDA)\");\n}",
            .use_instead = "Call the TPU replacement of each bound function from Python (torch ops on the XLA "
                           "device, JAX, or Pallas kernels), and make the extension's import optional.",
            .effort = "Low for the binding itself (0.5-2 h to make the import and build optional); the kernels "
                      "it binds are counted by TPU101 and the registrations by TPU130/TPU131.",
            .heuristic = "",
            .references = {"https://pybind11.readthedocs.io/en/stable/reference.html#c.PYBIND11_MODULE",
                           "https://docs.pytorch.org/tutorials/advanced/cpp_extension.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
