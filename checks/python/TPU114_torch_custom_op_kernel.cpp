// TPU114: a torch.library custom operator implemented only for CUDA (or Triton, or the CPU), so
// it has no kernel that XLA can compile.
// User docs: docs/checks/TPU114.md (generated from the CheckInfo below).
#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// What a registration gives an op: a kernel any backend can run (a default implementation, a
// Composite one, or XLA's own), a CPU or CUDA kernel, Triton kernels, or something else
// (Meta, Autograd, fake tensors) that does not run the op.
enum class Device { Portable, Cpu, Cuda, Triton, Other };

struct Registration {
  std::string op;  // "mylib::rms_norm" or, for a Library object, "rms_norm"
  Device device;
  Node at;         // the callee of the registering call
};

Device device_of(std::string_view s) {
  std::string t(s);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "cuda") return Device::Cuda;
  if (t == "cpu") return Device::Cpu;
  if (t == "default" || t == "xla" || t.starts_with("composite")) return Device::Portable;
  return Device::Other;
}

// The devices a `types` / `device_types` / dispatch-key argument names (a string or a sequence).
std::vector<Device> devices_of(Node arg) {
  std::vector<Device> out;
  for (const std::string& s : pyhelp::string_literals(arg)) out.push_back(device_of(s));
  return out;
}

std::string op_name(Node arg) {
  if (!arg) return "";
  auto s = python::string_value(arg);
  std::string name = s ? *s : std::string(arg.text());
  return name.substr(0, name.find('.'));  // drop the overload: "ns::op.Tensor" -> "ns::op"
}

// The registrations one call makes, or none.
template <typename LibraryFile>
std::vector<Registration> registrations_of(Node call, const python::PythonContext& ctx, LibraryFile library_file) {
  std::vector<Registration> out;
  Node callee = call.field(Field::Function);
  if (callee.kind() != Kind::Attribute && callee.kind() != Kind::Identifier) return out;
  const auto& q = ctx.qualified_name(callee);
  // Told by name before the argument list is built: most calls register nothing.
  bool library_impl = !q && callee.kind() == Kind::Attribute && callee.field(Field::Attribute).text() == "impl";
  if (!(q && (*q == "torch.library.custom_op" || *q == "torch.library.triton_op" || *q == "torch.library.impl" ||
              *q == "torch.library.register_kernel")) &&
      !(library_impl && library_file()))
    return out;
  python::CallArguments args = python::call_arguments(call);
  auto pos = [&](size_t i) { return i < args.positional.size() ? args.positional[i] : Node(); };
  auto add = [&](const std::string& op, const std::vector<Device>& devices) {
    for (Device d : devices) out.push_back({op, d, callee});
  };
  if (q && *q == "torch.library.custom_op") {
    Node types = args.keyword("device_types");
    if (!types || types.kind() == Kind::None)
      add(op_name(pos(0)), {Device::Portable});
    else
      add(op_name(pos(0)), devices_of(types));
  } else if (q && *q == "torch.library.triton_op") {
    add(op_name(pos(0)), {Device::Triton});
  } else if (q && (*q == "torch.library.impl" || *q == "torch.library.register_kernel")) {
    Node first = pos(0);
    if (first && first.kind() == Kind::String) {
      Node types = pos(1) ? pos(1) : args.keyword(*q == "torch.library.impl" ? "types" : "device_types");
      add(op_name(first), devices_of(types));
    } else if (*q == "torch.library.impl") {  // impl(lib, "op", "CUDA")
      Node key = pos(2) ? pos(2) : args.keyword("dispatch_key");
      if (key) add(op_name(pos(1)), devices_of(key));
    } else {  // register_kernel(op_object, "cuda")
      Node types = pos(1) ? pos(1) : args.keyword("device_types");
      add(op_name(first), devices_of(types));
    }
  } else if (library_impl) {
    // lib.impl("op", fn, "CUDA") on a torch.library.Library object.
    Node key = pos(2) ? pos(2) : args.keyword("dispatch_key");
    if (pos(0) && pos(0).kind() == Kind::String && key) add(op_name(pos(0)), devices_of(key));
  }
  return out;
}

// The short name of an op, to match "mylib::rms_norm" with a Library's "rms_norm".
std::string_view short_name(std::string_view op) {
  size_t colons = op.rfind("::");
  return colons == std::string_view::npos ? op : op.substr(colons + 2);
}

class TorchCustomOpKernel final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    // Searching the text is O(file): only for a `.impl(...)` call, and once per file walk below.
    auto library_file = [&ctx] { return ctx.tree().text().find("Library(") != std::string_view::npos; };
    std::vector<Registration> mine = registrations_of(call, ctx, library_file);
    if (mine.empty() || !ctx.imports().imports("torch")) return;

    // Every registration in the file decides what the op has (a rare walk: only at a registration).
    std::vector<Registration> all;
    auto known = [library = library_file()] { return library; };
    std::vector<Node> stack{ctx.tree().root()};
    while (!stack.empty()) {
      Node n = stack.back();
      stack.pop_back();
      if (n.kind() == Kind::Call)
        for (Registration& r : registrations_of(n, ctx, known))
          all.push_back(std::move(r));
      for (uint32_t i = n.named_child_count(); i-- > 0;) stack.push_back(n.named_child(i));
    }
    for (const Registration& r : mine) {
      bool portable = false, cpu = false;
      for (const Registration& o : all) {
        if (short_name(o.op) != short_name(r.op)) continue;
        portable |= o.device == Device::Portable;
        cpu |= o.device == Device::Cpu;
      }
      if (portable) continue;
      std::string op = r.op.empty() ? "a custom op" : fmt::format("custom op '{}'", r.op);
      constexpr std::string_view kHint =
          "give it an implementation XLA can compile: a default one written with torch ops (no "
          "'device_types'), or one that calls a Pallas kernel";
      if (r.device == Device::Cpu) {
        Finding& f = ctx.report(
            r.at, fmt::format("{} has only a CPU kernel; on a TPU it runs through torch_xla's CPU fallback", op),
            std::string(kHint), r.op);
        f.severity = Severity::Warning;
        f.hours = {1, 4};
      } else if ((r.device == Device::Cuda || r.device == Device::Triton) && !cpu) {
        ctx.report(r.at,
                   fmt::format("{} {}, which a TPU cannot run", op,
                               r.device == Device::Cuda ? "has only a CUDA kernel" : "is implemented with Triton kernels"),
                   std::string(kHint), r.op);
      }
    }
  }
};

const TorchCustomOpKernel kCheck;

}  // namespace

extern const CheckDef TPU114_torch_custom_op_kernel{
    .info = {
        .id = "TPU114",
        .name = "torch-custom-op-kernel",
        .summary = "torch.library custom op implemented only for CUDA, Triton or the CPU (no kernel XLA can "
                   "compile)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "Custom operators registered from Python whose only implementations are device kernels: "
                    "`@torch.library.custom_op(..., device_types=\"cuda\")`, `torch.library.impl(\"ns::op\", "
                    "\"cuda\")` (decorator or call, also the `impl(lib, \"op\", \"CUDA\")` form), "
                    "`torch.library.register_kernel(op, \"cuda\")`, `lib.impl(\"op\", fn, \"CUDA\")` on a "
                    "`torch.library.Library`, and `@torch.library.triton_op`. Reported at each registration "
                    "when no registration in the file gives the op a default or Composite implementation.",
            .why = "torch_xla registers a CPU fallback for every operator without an XLA kernel: an op with a "
                   "CPU kernel runs there, with a device-to-host copy each way on every call; an op with only "
                   "a CUDA or Triton kernel cannot run at all. A custom op defined with `custom_op` and no "
                   "`device_types` is fine: its Python body is the default implementation, and runs on the "
                   "XLA device like any torch code.",
            .example = "@torch.library.custom_op(\"mylib::rms_norm\", mutates_args=(), device_types=\"cuda\")\n"
                       "def rms_norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
                       "    return _rms_norm_cuda(x, w)",
            .use_instead = "Register an implementation that XLA compiles: drop `device_types` and write the body "
                           "with torch ops (or add `torch.library.impl(\"mylib::rms_norm\", "
                           "\"CompositeImplicitAutograd\")`), or call a Pallas kernel from it through "
                           "`torch_xla.experimental.custom_kernel`.",
            .effort = "Medium: 2-8 h for an op with only CUDA or Triton kernels (the kernels themselves are "
                      "counted by TPU111/TPU113 or TPU101); 1-4 h, as a warning, for a CPU-only op, which runs "
                      "but slowly.",
            .heuristic = "Registrations are matched by the op's short name within one file: an op whose default "
                         "implementation is registered in another file is reported (a false positive). A schema "
                         "alone (`torch.library.define`, `lib.define`) is not reported: it has no kernel; its "
                         "kernels registered in C++ (`TORCH_LIBRARY_IMPL`) are the C++ checks' concern. "
                         "`lib.impl(...)` is recognized in files that construct a `Library(...)`.",
            .references = {"https://docs.pytorch.org/docs/stable/library.html",
                           "https://docs.pytorch.org/tutorials/advanced/python_custom_ops.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
