// TPU611: a host-only library (SciPy, scikit-learn, ...) called in device code: a model's
// forward, a loss or matcher it calls, a training step.
// User docs: docs/checks/TPU611.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "checks/python/TPU2xx_helpers.h"
#include "data/host_only_libraries.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

const data::HostOnlyLibrariesRow* host_library_row(std::string_view callee) {
  return pyhelp::longest_module_row(data::kHostOnlyLibraries, &data::HostOnlyLibrariesRow::module, callee);
}

// True when `e` is a value the host makes alone, with no tensor in it: a literal, a NumPy array
// built from sizes or at random (`np.random.randn(n, n)`, `np.zeros(shape)`), a host library's
// result on such values, and names, subscripts, `.astype()` and arithmetic over them. A NumPy
// conversion (`np.asarray(t)`) is host-made only when what it converts is.
bool made_on_host(Node e, const python::PythonContext& ctx, int hops);

bool arguments_made_on_host(Node call, const python::PythonContext& ctx, int hops) {
  const python::CallArguments args = python::call_arguments(call);
  if (args.has_splat || (args.positional.empty() && args.keywords.empty())) return false;
  for (Node a : args.positional)
    if (!made_on_host(a, ctx, hops)) return false;
  for (const auto& [name, value] : args.keywords)
    if (!made_on_host(value, ctx, hops)) return false;
  return true;
}

// The call and the method calls chained on its result (`KMeans(4).fit(x)`, whose `fit` is where
// the data goes in) all take host-made arguments.
bool chain_made_on_host(Node call, const python::PythonContext& ctx) {
  for (Node c = call;;) {
    if (!arguments_made_on_host(c, ctx, 0)) return false;
    Node attribute = c.parent();
    if (!attribute || attribute.kind() != Kind::Attribute || attribute.field(Field::Object) != c) return true;
    Node outer = attribute.parent();
    if (!outer || outer.kind() != Kind::Call || outer.field(Field::Function) != attribute) return true;
    c = outer;
  }
}

bool made_on_host(Node e, const python::PythonContext& ctx, int hops) {
  e = python::unparenthesized(e);
  if (!e) return false;
  switch (e.kind()) {
    case Kind::Integer:
    case Kind::Float:
    case Kind::String:
    case Kind::True:
    case Kind::False:
    case Kind::None:
      return true;
    case Kind::Identifier: {
      if (hops >= dyn::kMaxAssignmentHops) return false;
      Node value = dyn::last_assignment(e.text(), e.span().begin, ctx);
      return value && made_on_host(value, ctx, hops + 1);
    }
    case Kind::Subscript:
      return made_on_host(e.field(Field::Value), ctx, hops);
    case Kind::Tuple:
    case Kind::List:
    case Kind::BinaryOperator:
    case Kind::UnaryOperator:
      for (uint32_t i = 0; i < e.named_child_count(); ++i)
        if (!made_on_host(e.named_child(i), ctx, hops)) return false;
      return true;
    case Kind::Call: {
      Node callee = e.field(Field::Function);
      if (const auto& q = ctx.qualified_name(callee)) {
        if (q->starts_with("numpy.random.") ||
            dyn::one_of(*q, {"numpy.zeros", "numpy.ones", "numpy.eye", "numpy.identity", "numpy.arange",
                             "numpy.full", "numpy.empty", "numpy.linspace"}))
          return true;
        if (q->starts_with("numpy.") || host_library_row(*q)) return arguments_made_on_host(e, ctx, hops);
        return false;
      }
      if (callee.kind() == Kind::Attribute && callee.field(Field::Attribute).text() == "astype")
        return made_on_host(callee.field(Field::Object), ctx, hops);
      return false;
    }
    default:
      return false;
  }
}

class HostLibraryInDeviceCode final : public python::PythonCheck {
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_modules() const override {
    static const std::vector<std::string_view> modules = [] {
      std::vector<std::string_view> out;
      for (const auto& row : data::kHostOnlyLibraries) out.push_back(row.module);
      return out;
    }();
    return modules;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    // JAX code hands a host library concrete values only (a traced one fails on any backend): at
    // trace time that computes a constant, and eagerly it costs a GPU the same round trip.
    if (ctx.imports().imports("jax") && !ctx.imports().imports("torch")) return;
    const auto& callee = ctx.qualified_name(call.field(python::Field::Function));
    if (!callee) return;
    const data::HostOnlyLibrariesRow* row = host_library_row(*callee);
    if (!row) return;
    // A constant the host computes from values it made itself (a random orthogonal matrix for an
    // initializer): no tensor crosses to the host, whatever code it sits in.
    if (chain_made_on_host(call, ctx)) return;
    ctx.report(call,
               fmt::format("'{}' runs on the host ({}, {}): in device code every step waits for the device, "
                           "copies its inputs to the host and the result back",
                           *callee, row->library, row->what),
               "compute it with tensor ops on the device, or move it out of the step (into the data pipeline, "
               "or after the step on results the host already has)",
               *callee);
  }
};

const HostLibraryInDeviceCode kCheck;

}  // namespace

extern const CheckDef TPU611_host_library_in_device_code{
    .info = {
        .id = "TPU611",
        .name = "host-library-in-device-code",
        .summary = "a host-only library (SciPy, scikit-learn, ...) called in a forward, a loss or a training step",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::High,
        .hours = {16, 40},
        .device_code_only = true,
        .hot_path_only = true,
        .doc = {
            .what = "Calls into libraries that compute on the host CPU on NumPy arrays (SciPy, scikit-learn, "
                    "lap, NetworkX, pycocotools, Shapely, Numba's CPU JIT: "
                    "checks/data/host_only_libraries.tsv) in device code: a model's `forward`, the functions and "
                    "methods it calls (a loss, a Hungarian matcher), a loss's matching helpers made from a config through a registry (`HungarianAssigner3D.assign`, a match cost's `__call__`), functions under a tracing transform, and "
                    "training loops, as the semantic model places them (docs/scoring.md, Contexts). The same call "
                    "in a dataset, evaluation, one-time or unknown code is not reported: there it is ordinary host "
                    "code. Nor is it in a module that imports JAX and not PyTorch: JAX hands a host library concrete "
                    "values only (under `jax.jit` a traced value fails on a GPU as well), so what it computes there "
                    "is a trace-time constant, or the same host round trip on a GPU. Image libraries (OpenCV, scikit-image) are left out: in device code they are nearly "
                    "always an inference wrapper's preprocessing of host images.",
            .why = "The library needs the tensors' values on the host. On a TPU, PyTorch/XLA cuts the lazy graph, "
                   "runs it, waits for the device and copies the data out, then traces the rest of the step with "
                   "the result as a new input; in `tf.function`, which a TPU requires, the call fails on a traced value. "
                   "Every step then alternates between the device and the host, and a TPU spends most of it idle. "
                   "DETR's `linear_sum_assignment` on the cost matrix in its matcher is the common case.",
            .example = "from scipy.optimize import linear_sum_assignment\n\nclass HungarianMatcher(nn.Module):\n"
                       "    def forward(self, outputs, targets):\n"
                       "        cost = torch.cdist(outputs['boxes'], targets['boxes']).cpu()\n"
                       "        return [linear_sum_assignment(c) for c in cost]",
            .use_instead = "An algorithm in tensor ops on the device (a batched auction or Sinkhorn matching, a "
                           "fixed-size top-k assignment), or the host work moved out of the step: computed in the "
                           "data pipeline, or run on the previous step's results while the device works "
                           "(`xm.add_step_closure`).",
            .effort = "High: it is a redesign of that part of the step (a matcher, a post-processing stage), with "
                      "its numerics to validate, not a one-line change.",
            .heuristic = "The callee must resolve through the file's imports to a module of the table (a dotted "
                         "prefix: `scipy` covers `scipy.optimize.linear_sum_assignment`). Placement is the "
                         "semantic model's: a helper called from both a forward and evaluation code counts as "
                         "device code; one whose callers are unknown is not reported; a lazy initialization in "
                         "the forward (`if not hasattr(Net, 'vgg'): Net.vgg = scipy.io.loadmat(...)`) runs once "
                         "and is not reported. Nor is a call whose arguments the host makes alone, with no tensor in them "
                         "(literals, NumPy arrays built from sizes or at random, a host library's results on such "
                         "values, through local names): Glow's `scipy.linalg.qr(np.random.randn(c, c))` for an "
                         "initializer computes a constant and copies nothing from the device.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerArrayConversionError",
                           "https://github.com/facebookresearch/detr/blob/main/models/matcher.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
