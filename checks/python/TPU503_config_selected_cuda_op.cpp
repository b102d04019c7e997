// TPU503: an OpenMMLab config choosing one of mmcv's CUDA ops by its registered name
// (`dcn=dict(type='DCNv2')`, `roi_layer=dict(type='RoIAlign')`).
// User docs: docs/checks/TPU503.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/kernel_class.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// The config key a value is given under: `name=value` in a call, `'name': value` in a dict
// literal, `name = value` at the top of a config file; "" for anything else.
std::string key_of(Node value) {
  Node p = value.parent();
  if (!p) return "";
  if (p.kind() == Kind::KeywordArgument && p.field(Field::Value) == value) {
    Node name = p.field(Field::Name);
    return name ? std::string(name.text()) : "";
  }
  if (p.kind() == Kind::Pair && p.named_child_count() == 2 && p.named_child(1) == value)
    return python::whole_string_value(p.named_child(0)).value_or("");
  if (p.kind() == Kind::Assignment && p.field(Field::Right) == value) {
    Node left = p.field(Field::Left);
    return left && left.kind() == Kind::Identifier ? std::string(left.text()) : "";
  }
  return "";
}

// Whether the config entry `entry` (the dict that names the type) sits under the key `key`:
// `test_cfg` holds the settings of test-time post-processing, which runs after the model, not in
// its training step; `train_cfg` those of the training step's own stages (a proposal stage's NMS).
// A config's entries nest a few levels deep; the walk up stops after kMaxConfigDepth ancestors, so
// that a file of nested dicts (`dict(type='DCN', a=dict(type='DCN', ...))`, each asking) costs
// linear time, not quadratic.
constexpr int kMaxConfigDepth = 64;

bool under_key(Node entry, std::string_view key) {
  int depth = 0;
  for (Node n = entry; n && depth < kMaxConfigDepth && n.kind() != Kind::FunctionDefinition &&
                       n.kind() != Kind::ClassDefinition && n.kind() != Kind::Module;
       n = n.parent(), ++depth) {
    if (key_of(n) == key) return true;
  }
  return false;
}

// NMS is post-processing but in a training stage: a detector's proposal stage under `train_cfg`.
// A library's own default (`cfg.nms = ConfigDict(dict(type='nms', ...))` in a head's box decoding)
// serves evaluation as much as training, and is not the project's choice.
bool post_processing_op(std::string_view op) { return op == "nms"; }

// Whether every element of a literal tuple or list is `False`: `stage_with_dcn=(False, False,
// False, False)` turns a backbone's `dcn` off in every stage.
bool all_false(Node n) {
  n = python::unparenthesized(n);
  if (!n || (n.kind() != Kind::Tuple && n.kind() != Kind::List) || n.named_child_count() == 0) return false;
  for (uint32_t i = 0; i < n.named_child_count(); ++i)
    if (n.named_child(i).kind() != Kind::False) return false;
  return true;
}

// Whether `entry` is a backbone's `dcn=dict(...)` whose `stage_with_dcn` turns it off everywhere.
bool dcn_turned_off(Node entry) {
  Node keyword = entry.parent();
  if (!keyword || keyword.kind() != Kind::KeywordArgument || key_of(entry) != "dcn") return false;
  Node arguments = keyword.parent();
  if (!arguments || arguments.kind() != Kind::ArgumentList) return false;
  for (uint32_t i = 0; i < arguments.named_child_count(); ++i) {
    Node other = arguments.named_child(i);
    if (other.kind() != Kind::KeywordArgument) continue;
    Node name = other.field(Field::Name);
    if (name && name.text() == "stage_with_dcn") return all_false(other.field(Field::Value));
  }
  return false;
}

// A directory named `_base_` holds the fragments that configs inherit (`_base_ = [...]`): a
// fragment chooses nothing until a config inherits it, and projects ship many they never use.
bool in_base_fragment(std::string_view path) {
  return path.starts_with("_base_/") || path.find("/_base_/") != std::string_view::npos;
}

class ConfigSelectedCudaOp final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::Pair};
    return k;
  }

  void check(Node node, python::PythonContext& ctx) const override {
    // `dict(type='DCNv2', ...)` or `{'type': 'DCNv2', ...}`: the entry and its type's string.
    Node entry, type;
    if (node.kind() == Kind::Call) {
      Node callee = node.field(Field::Function);
      if (!callee || callee.kind() != Kind::Identifier || callee.text() != "dict") return;
      entry = node;
      type = python::call_arguments(node).keyword("type");
    } else {
      if (node.named_child_count() != 2 || python::whole_string_value(node.named_child(0)) != "type") return;
      entry = node.parent();
      type = node.named_child(1);
    }
    std::optional<std::string> name = python::whole_string_value(type);
    if (!name || !entry) return;
    const kernels::StandardOp* op = kernels::op_registered(*name);
    if (!op || in_base_fragment(ctx.file().path()) || under_key(entry, "test_cfg") || dcn_turned_off(entry)) return;
    if (post_processing_op(op->op) && !under_key(entry, "train_cfg")) return;
    Finding& f = ctx.report(type,
                            fmt::format("'{}' chooses mmcv's CUDA op for {}, which has a TPU replacement: use {}", *name,
                                        op->title, op->use));
    kernels::apply_standard_op_use(f, *op, *name);
  }
};

const ConfigSelectedCudaOp kCheck;

}  // namespace

extern const CheckDef TPU503_config_selected_cuda_op{
    .info = {
        .id = "TPU503",
        .name = "config-selected-cuda-op",
        .summary = "an OpenMMLab config chooses one of mmcv's CUDA ops by name (`dcn=dict(type='DCNv2')`): a standard "
                   "op to swap for its TPU replacement",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {4, 24},
        .doc = {
            .what = "A config entry `dict(type=NAME, ...)` or `{'type': NAME, ...}` whose NAME is one mmcv registers "
                    "for a CUDA op with a known TPU replacement: `DCN` and `DCNv2` (deformable convolution), "
                    "`MultiScaleDeformableAttention`, `RoIAlign`, `RoIPool`, `RoIAlignRotated`, `nms` and "
                    "`soft_nms`, `carafe` (the `registry` column of checks/data/standard_kernels.tsv). The op "
                    "then runs inside a model the project builds from the config (MMDetection's ResNet with "
                    "`dcn=`, a RoI head's `roi_layer=`, a proposal stage's `nms=`) though no line of the project "
                    "imports it.",
            .why = "mmcv's ops are C++/CUDA extension kernels: on an XLA device they raise or fall back to the "
                   "CPU. A project built on MMDetection or MMDetection3D often chooses them only by name in its "
                   "configs, so the import checks (TPU501) never see them.",
            .example = "model = dict(\n"
                       "    img_backbone=dict(\n"
                       "        type='ResNet', depth=101,\n"
                       "        dcn=dict(type='DCNv2', deform_groups=1, fallback_on_stride=False),\n"
                       "        stage_with_dcn=(False, False, True, True)))",
            .use_instead = "Register a TPU implementation under the same name, or choose one in the config: "
                           "deformable convolution as gathers and a matmul, ROI align as bilinear gathers over "
                           "a fixed grid, a fixed-size NMS in tensor ops (each finding names the replacement).",
            .effort = "Medium, the op's hours from checks/data/standard_kernels.tsv (swapping in the replacement "
                      "and validating its numerics). The op is swapped once for the whole project: of its "
                      "findings, the most expensive is priced and the other configs that choose it cost nothing.",
            .heuristic = "Not reported in a `_base_/` directory (fragments that configs inherit, often shipped "
                         "unused), inside a `test_cfg` entry (test-time post-processing, after the model), or for "
                         "a backbone's `dcn=` when `stage_with_dcn` is all `False`. NMS (`nms`, `soft_nms`) only "
                         "under a `train_cfg` (a proposal stage of training): elsewhere it is post-processing, or a "
                         "library's default for box decoding. The name is compared whole "
                         "and case-sensitively, as the registry looks it up; an f-string is not read.",
            .references = {"https://github.com/open-mmlab/mmcv/blob/main/mmcv/ops/modulated_deform_conv.py",
                           "https://github.com/open-mmlab/mmdetection/blob/main/mmdet/models/backbones/resnet.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
