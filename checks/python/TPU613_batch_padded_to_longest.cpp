// TPU613: a batch padded to its own longest sequence: its length, and the step's shapes, change
// from batch to batch.
// User docs: docs/checks/TPU613.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;
using python::PythonContext;

constexpr std::string_view kSubject = "batches padded to their longest sequence";
constexpr std::string_view kHint =
    "pad to a fixed length ('padding=\"max_length\"', 'max_length=N'), or to a few bucket lengths "
    "('pad_to_multiple_of=N'), so that the step sees a handful of shapes";

// Hugging Face collators that pad each batch with the tokenizer (to the longest by default).
constexpr std::string_view kCollators[] = {"DataCollatorWithPadding", "DataCollatorForSeq2Seq",
                                           "DataCollatorForTokenClassification", "DataCollatorForLanguageModeling"};

// `padding=True` or `padding="longest"`: the tokenizer's pad to the batch's longest.
bool pads_to_longest(Node padding) {
  if (!padding) return false;
  if (pyapi::bool_literal(padding) == true) return true;
  auto s = python::string_value(padding);
  return s && *s == "longest";
}

class BatchPaddedToLongest final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"pad_sequence",
                                             "DataCollatorWithPadding",
                                             "DataCollatorForSeq2Seq",
                                             "DataCollatorForTokenClassification",
                                             "DataCollatorForLanguageModeling",
                                             "tokenizer",
                                             "batch_encode_plus",
                                             "pad"};
    return k;
  }

  void check(Node call, PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(python::Field::Function));
    const python::CallArguments args = python::call_arguments(call);
    if (q && *q == "torch.nn.utils.rnn.pad_sequence") {
      ctx.report(call,
                 "'pad_sequence' pads to the longest sequence it is given: the length changes from batch to "
                 "batch, and each new length compiles the step again",
                 kHint, kSubject);
      return;
    }
    if (q && q->starts_with("transformers.")) {
      for (std::string_view collator : kCollators)
        if (python::last_name_part(*q) == collator) {
          if (args.has_splat) return;
          auto padding = python::string_value(args.keyword("padding"));
          if (padding && *padding == "max_length") return;
          Node multiple = args.keyword("pad_to_multiple_of");
          if (multiple && !python::is_none(multiple)) return;
          ctx.report(call,
                     std::string("'") + std::string(collator) +
                         "' pads each batch to its longest sequence: the length changes from batch to batch, "
                         "and each new length compiles the step again",
                     kHint, kSubject);
          return;
        }
      return;
    }
    // A tokenizer asked for tensors padded to the batch's longest (`tokenizer(texts, padding=True,
    // return_tensors="pt")`, `tokenizer.pad(features, padding="longest", return_tensors="pt")`).
    if (pads_to_longest(args.keyword("padding")) && args.keyword("return_tensors"))
      ctx.report(call,
                 "the tokenizer pads to the batch's longest sequence ('padding=True'): the length changes from "
                 "batch to batch, and each new length compiles the step again",
                 kHint, kSubject);
  }
};

const BatchPaddedToLongest kCheck;

}  // namespace

extern const CheckDef TPU613_batch_padded_to_longest{
    .info = {
        .id = "TPU613",
        .name = "batch-padded-to-longest",
        .summary = "batches padded to their own longest sequence (pad_sequence, padding=True, a padding "
                   "collator): a new shape, and a recompile, for each new length",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.5, 2},
        .doc = {
            .what = "`torch.nn.utils.rnn.pad_sequence(...)`; a tokenizer call asked for tensors padded to the "
                    "batch's longest sequence (`padding=True` or `padding=\"longest\"` with `return_tensors=`); "
                    "Hugging Face's padding collators (`DataCollatorWithPadding`, `DataCollatorForSeq2Seq`, "
                    "`DataCollatorForTokenClassification`, `DataCollatorForLanguageModeling`) without "
                    "`padding=\"max_length\"` or `pad_to_multiple_of=`.",
            .why = "XLA compiles the step for the shapes it is given. Padding each batch to its own longest "
                   "sequence gives the step a new sequence length nearly every batch, and PyTorch/XLA traces and "
                   "compiles it again for each: the run spends its time compiling. On a GPU the same padding "
                   "saves work; on a TPU a fixed length, or a few bucket lengths, is the fast path.",
            .example = "def collate(batch):\n    return pad_sequence([b['ids'] for b in batch], batch_first=True)",
            .use_instead = "Pad to a fixed length (`tokenizer(..., padding=\"max_length\", max_length=512)`, "
                           "`F.pad` to `max_len`), or to a multiple of a bucket size "
                           "(`DataCollatorWithPadding(tok, pad_to_multiple_of=128)`), and mask the padding.",
            .effort = "Low: a fixed length or a bucket size where the batch is built, and a mask where the "
                      "model does not already take one.",
            .heuristic = "Reported wherever it stands, including the host's data path (a collate function): that "
                         "is where the shapes the step sees are made, so these findings are not discounted there. "
                         "A tokenizer call is one with `return_tensors=`; a collator with `**kwargs` is skipped.",
            .references = {"https://docs.pytorch.org/xla/master/perf/recompilation.html",
                           "https://huggingface.co/docs/transformers/main_classes/data_collator"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
