// TPU614: a batch of images (or any tensors) padded to the largest of its own: its shape, and the
// step's, change from batch to batch.
// User docs: docs/checks/TPU614.md (generated from the CheckInfo below).
#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;

constexpr std::string_view kSubject = "batches padded to their largest tensor";
constexpr std::string_view kHint =
    "pad to a fixed size (the largest the data pipeline makes) or to a few bucket sizes, and keep the mask, "
    "so that the step sees a handful of shapes";

// How far names are followed to their values (`batch_shape = [n] + max_size`, `max_size = ...`), and
// how many names one call's arguments may look up in all: a scope walk each, bounded whatever the input.
constexpr int kDepth = 3;
constexpr int kMaxLookups = 64;

// The allocations a padded batch is made in: torch's constructors, a tensor's `new_*`, `F.pad`.
bool allocates(std::string_view qualified, std::string_view last) {
  static constexpr std::string_view kTorch[] = {"torch.zeros", "torch.ones", "torch.full", "torch.empty",
                                                "torch.nn.functional.pad"};
  static constexpr std::string_view kMethods[] = {"new_zeros", "new_ones", "new_full", "new_empty"};
  return std::find(std::begin(kTorch), std::end(kTorch), qualified) != std::end(kTorch) ||
         std::find(std::begin(kMethods), std::end(kMethods), last) != std::end(kMethods);
}

class Reader {
 public:
  explicit Reader(const PythonContext& ctx) : ctx_(ctx) {}

  // Whether `expr`, or a value of a name in it (`kDepth` deep), is the maximum of many tensors' shapes:
  // a `max` call (`max`, `_max_by_axis`, `.max(0)`) over `.shape`s or `.size()`s gathered by a loop
  // (`[list(img.shape) for img in tensor_list]`, `zip(*[im.shape for im in images])`).
  bool batch_maximum(Node expr, int depth) const {
    if (depth < 0 || !expr) return false;
    if (has_max_call(expr) && shapes_of_many(expr, depth)) return true;
    return any_name_value(expr, depth, [&](Node v, int d) { return batch_maximum(v, d); });
  }

 private:
  template <typename Pred>
  bool any_name_value(Node expr, int depth, Pred pred) const {
    if (depth <= 0) return false;
    const python::Tree& tree = *expr.tree();
    for (uint32_t id = expr.id(); id < tree.subtree_end(expr); ++id) {
      Node n(&tree, id);
      if (n.kind() != Kind::Identifier || (n.parent() && n.parent().kind() == Kind::Attribute &&
                                           n.parent().field(Field::Attribute) == n))
        continue;
      if (++lookups_ > kMaxLookups) return false;
      for (Node v : pyhelp::assigned_values(n.text(), ctx_))
        if (v.span().begin != expr.span().begin && pred(v, depth - 1)) return true;
    }
    return false;
  }

  static bool has_max_call(Node expr) {
    const python::Tree& tree = *expr.tree();
    for (uint32_t id = expr.id(); id < tree.subtree_end(expr); ++id)
      if (Node n(&tree, id); n.kind() == Kind::Call) {
        const std::string name = pyapi::ascii_lower(python::last_name(n.field(Field::Function)));
        if (name == "max" || name == "amax" || name.ends_with("max_by_axis")) return true;
      }
    return false;
  }

  // `.shape`s or `.size()`s gathered by a loop in `expr`, or in a value of a name in it; or a `max`
  // over a batch keyed by a shape (`max(batch, key=lambda s: s[0].size(1))`, or a function so defined).
  bool shapes_of_many(Node expr, int depth) const {
    const python::Tree& tree = *expr.tree();
    bool loop = false, shape = false;
    for (uint32_t id = expr.id(); id < tree.subtree_end(expr); ++id) {
      Node n(&tree, id);
      if (n.type() == "for_in_clause") loop = true;
      if (reads_shape(n)) shape = true;
      if (n.kind() == Kind::Call && keyed_by_shape(n)) return true;
    }
    if (loop && shape) return true;
    return any_name_value(expr, depth, [&](Node v, int d) { return shapes_of_many(v, d); });
  }

  static bool reads_shape(Node n) {
    return (n.kind() == Kind::Attribute && n.field(Field::Attribute).text() == "shape") ||
           (n.kind() == Kind::Call && python::last_name(n.field(Field::Function)) == "size");
  }

  static bool any_shape_read(Node node) {
    const python::Tree& tree = *node.tree();
    for (uint32_t id = node.id(); id < tree.subtree_end(node); ++id)
      if (reads_shape(Node(&tree, id))) return true;
    return false;
  }

  // A `max(...)` call whose `key=` reads a shape: a lambda, or a function of the file by that name.
  bool keyed_by_shape(Node call) const {
    if (pyapi::ascii_lower(python::last_name(call.field(Field::Function))) != "max") return false;
    Node args = call.field(Field::Arguments);
    for (uint32_t i = 0; args && i < args.named_child_count(); ++i) {
      Node a = args.named_child(i);
      if (a.kind() != Kind::KeywordArgument || a.field(Field::Name).text() != "key") continue;
      Node key = a.field(Field::Value);
      if (key.kind() == Kind::Lambda) return any_shape_read(key);
      if (key.kind() != Kind::Identifier) return false;
      return function_reads_shape(key.text());
    }
    return false;
  }

  // Whether the file's first function named `name` reads a shape in its body. The functions are
  // found in one walk of the file, and each body read once, whatever the number of `max` calls.
  struct ShapeKeys {
    bool built = false;
    std::unordered_map<std::string_view, std::pair<Node, std::optional<bool>>> by_name;  // views into the text
  };
  bool function_reads_shape(std::string_view name) const {
    ShapeKeys& keys = ctx_.file_state<ShapeKeys>();
    if (!keys.built) {
      keys.built = true;
      const python::Tree& tree = ctx_.tree();
      for (uint32_t id = 0; id < tree.node_count(); ++id)
        if (Node d(&tree, id); d.kind() == Kind::FunctionDefinition)
          keys.by_name.try_emplace(d.field(Field::Name).text(), d, std::nullopt);
    }
    auto it = keys.by_name.find(name);
    if (it == keys.by_name.end()) return false;
    auto& [definition, reads] = it->second;
    if (!reads) reads = any_shape_read(definition.field(Field::Body));
    return *reads;
  }

  const PythonContext& ctx_;
  mutable int lookups_ = 0;
};

class BatchPaddedToLargest final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"zeros",     "ones",     "full",     "empty",    "pad",
                                             "new_zeros", "new_ones", "new_full", "new_empty"};
    return k;
  }

  void check(Node call, PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (!allocates(q ? std::string_view(*q) : std::string_view(), python::last_name(call.field(Field::Function))))
      return;
    Node args = call.field(Field::Arguments);
    if (!args || !Reader(ctx).batch_maximum(args, kDepth)) return;
    // The sizes are chosen once for the project; each further place pads to them.
    ctx.report(call,
               "the batch is padded to the largest tensor in it: its shape changes from batch to batch, and each "
               "new shape compiles the step again",
               kHint, kSubject)
        .priced_once = true;
  }
};

const BatchPaddedToLargest kCheck;

}  // namespace

extern const CheckDef TPU614_batch_padded_to_largest{
    .info = {
        .id = "TPU614",
        .name = "batch-padded-to-largest",
        .summary = "a batch of images (or other tensors) padded to the largest of its own (DETR's "
                   "NestedTensor, detectron2's ImageList): a new shape, and a recompile, for each new size",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {4, 16},
        .doc = {
            .what = "A tensor allocated (`torch.zeros`, `torch.ones`, `torch.full`, `torch.empty`, a tensor's "
                    "`new_zeros`/`new_ones`/`new_full`/`new_empty`, `F.pad`) with a size that is the maximum of "
                    "many tensors' shapes: a `max` call (`max`, `.max(0)`, `amax`, DETR's `_max_by_axis`) over "
                    "`.shape`s or `.size()`s gathered by a loop (`[list(img.shape) for img in tensor_list]`), "
                    "found through the names that carry it (`batch_shape = [len(tensor_list)] + max_size`).",
            .why = "XLA compiles the step for the shapes it is given. A batch padded to its own largest image "
                   "(detection and segmentation codebases batch images of varying size this way, often after a "
                   "multi-scale resize) has a new height and width nearly every batch, and PyTorch/XLA traces and "
                   "compiles the step again for each: the run spends its time compiling. On a GPU the padding "
                   "saves work; on a TPU a fixed size, or a few bucket sizes, is the fast path.",
            .example = "def nested_tensor_from_tensor_list(tensor_list):\n"
                       "    max_size = _max_by_axis([list(img.shape) for img in tensor_list])\n"
                       "    batch_shape = [len(tensor_list)] + max_size\n"
                       "    tensor = torch.zeros(batch_shape, dtype=tensor_list[0].dtype)",
            .use_instead = "Pad every batch to one fixed size (the largest the resize makes: 1333 x 1333 for "
                           "DETR's 800-1333 resize) or to a few bucket sizes (round the maximum up to a multiple "
                           "of 128 or 256), keep the padding mask the model already takes, and check the loss "
                           "and metrics against the GPU run.",
            .effort = "Medium, 4-16 h, once for the project: choosing the sizes (memory and speed against the "
                      "resize's range), padding to them where the batch is made, and validating the model's "
                      "results with the new padding; further places pad to the same sizes (docs/scoring.md, a "
                      "change made once for the project).",
            .heuristic = "Reported wherever it stands, including the host's data path (a collate function): that "
                         "is where the shapes the step sees are made, so these findings are not discounted there. "
                         "Names are followed to their assigned values three deep, in the function and then the "
                         "module; a maximum of one tensor's dimensions (`max(h, w)`) or of a fixed list is no "
                         "batch's. The longest sample by a key that reads a size (`max(batch, key=lambda s: "
                         "s[0].size(1))`, or a function of the file so named: deepspeech.pytorch's collate) is "
                         "the batch's maximum. A size a helper in another function computes is not followed.",
            .references = {"https://docs.pytorch.org/xla/master/perf/recompilation.html",
                           "https://github.com/facebookresearch/detr/blob/main/util/misc.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
