// TPU410: the NCCL backend for torch.distributed (init_process_group("nccl"), backend="nccl").
// User docs: docs/checks/TPU410.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

bool names_backend(std::string_view name) { return pa::ascii_lower(name).find("backend") != std::string::npos; }

// True when the string `s` is where a torch.distributed backend is chosen: the first argument of
// init_process_group/new_group, a `backend=` keyword, a value assigned to (or the default of) a
// name containing "backend", or the `default=` of an argparse option named like one. Conditional
// expressions are looked through: `"nccl" if dist.is_nccl_available() else "gloo"`.
bool chooses_backend(Node s, const python::PythonContext& ctx) {
  Node n = pa::through_choices(s);
  Node p = n.parent();
  if (!p) return false;
  if (p.kind() == Kind::KeywordArgument) {
    std::string_view key = p.field(Field::Name).text();
    if (names_backend(key)) return true;
    if (key != "default") return false;
    // parser.add_argument("--dist-backend", default="nccl")
    python::CallArguments args = python::call_arguments(p.parent().parent());
    if (args.positional.empty()) return false;
    auto flag = pa::string_literal(args.positional[0]);
    return flag && names_backend(*flag);
  }
  if (p.kind() == Kind::ArgumentList) {
    Node call = p.parent();
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    python::CallArguments args = python::call_arguments(call);
    return q && (*q == "torch.distributed.init_process_group" || *q == "torch.distributed.new_group") &&
           !args.positional.empty() && args.positional[0] == n;
  }
  if (p.kind() == Kind::Assignment && p.field(Field::Right) == n) return names_backend(python::last_name(p.field(Field::Left)));
  if ((p.kind() == Kind::DefaultParameter || p.kind() == Kind::TypedDefaultParameter) && p.field(Field::Value) == n)
    return names_backend(p.field(Field::Name).text());
  return false;
}

constexpr std::string_view kHint =
    "use the XLA backend: 'dist.init_process_group(\"xla\", init_method=\"xla://\")' after 'import "
    "torch_xla.distributed.xla_backend'";

// The enum spelled as an attribute.
constexpr std::string_view kNcclBackend = "torch.distributed.Backend.NCCL";

class NcclBackend final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::String};
    return k;
  }

  // The enum spelled as an attribute: torch.distributed.Backend.NCCL.
  bool checks_references() const override { return true; }
  std::span<const std::string_view> reference_names() const override {
    static constexpr std::string_view k[] = {kNcclBackend};
    return k;
  }
  void check_reference(Node n, const std::string& q, python::PythonContext& ctx) const override {
    if (n.kind() == Kind::Attribute && q == kNcclBackend && !pa::in_test(n, ctx))
      ctx.report(n, "'torch.distributed.Backend.NCCL' is the NVIDIA collectives backend: there is no NCCL on a TPU host",
                 std::string(kHint), "nccl");
  }

  void check(Node n, python::PythonContext& ctx) const override {
    auto s = pa::string_literal(n);
    if (!s || pa::ascii_lower(*s) != "nccl" || !ctx.imports().imports("torch") || pa::in_test(n, ctx)) return;
    if (!chooses_backend(n, ctx)) return;
    Finding& f =
        ctx.report(n, fmt::format("'{}' selects the NVIDIA collectives backend: there is no NCCL on a TPU host", *s),
                   std::string(kHint), "nccl");
    pa::soften_if_cuda_guarded(f, n, ctx);
  }
};

const NcclBackend kCheck;

}  // namespace

extern const CheckDef TPU410_nccl_backend{
    .info = {
        .id = "TPU410",
        .name = "nccl-backend",
        .summary = "torch.distributed NCCL backend (init_process_group(\"nccl\"), backend=\"nccl\"): use the XLA "
                   "backend",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "The string `\"nccl\"` where a `torch.distributed` backend is chosen: the first argument of "
                    "`init_process_group`/`new_group`, any `backend=`/`dist_backend=` keyword, a value assigned to "
                    "(or the default of) a name containing `backend`, the `default=` of an argparse option named "
                    "like one, including either branch of a conditional expression; and "
                    "`torch.distributed.Backend.NCCL`.",
            .why = "NCCL is NVIDIA's collective-communication library; a TPU host has neither it nor the GPUs it "
                   "talks to, so `init_process_group(\"nccl\")` fails. The fallback many scripts take (`\"gloo\"`) "
                   "runs collectives on the CPU and cannot reduce tensors that live on an XLA device.",
            .example = "dist.init_process_group(backend=\"nccl\", init_method=\"env://\")",
            .use_instead = "`import torch_xla.distributed.xla_backend`, then "
                           "`dist.init_process_group(\"xla\", init_method=\"xla://\")`, and start the processes with "
                           "`torch_xla.launch(fn)` (or `torchrun`, which works with `xla://`). With SPMD no process "
                           "group is needed.",
            .effort = "Low: 0.25-1 h to switch the backend and the launcher.",
            .heuristic = "Guarded by a CUDA test (`if torch.cuda.is_available():`), it is a warning. Only a "
                         "literal \"nccl\" in one of the positions above is reported: a backend read from a "
                         "config file, or a mapping such as `{\"cuda\": \"nccl\"}`, is not. Comparisons "
                         "(`dist.get_backend() == \"nccl\"`) are not reported. Files that do not import torch are "
                         "skipped.",
            .references = {"https://docs.pytorch.org/xla/master/features/torch_distributed.html",
                           "https://docs.pytorch.org/xla/master/learn/_pjrt.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
