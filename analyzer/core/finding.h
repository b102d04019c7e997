// Finding: one thing a check found, self-contained so that reporters need nothing else
// (no source file, no check object) to print it. FileResult: everything known about one file.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/check_info.h"
#include "core/interned_string.h"
#include "core/source_file.h"
#include "core/types.h"

namespace tpulint {

// Where a notebook's finding is as the notebook shows it (core/notebook.h): its cell, and the
// line and column in the cell's source. The finding's own start and end are then in the
// notebook's JSON text, where a tool that reads the file (SARIF, an editor) looks.
struct CellPosition {
  uint32_t index = 0;  // 1-based, counting every cell as the notebook shows them; 0: not in a notebook
  Position start;
  Position end;
  friend bool operator==(const CellPosition&, const CellPosition&) = default;
};

// The path, check name, message, hint, subject and source line are shared by many findings
// (a check's findings often say the same, several findings stand on one line): InternedString,
// so that a large scan's parent holds each value once instead of allocating it per finding.
struct Finding {
  std::string check_id;   // "TPU201"
  InternedString check_name; // "torch-dynamic-shape-op"
  Category category = Category::AnalyzerNote;
  Severity severity = Severity::Info;
  EffortClass effort = EffortClass::None;
  HoursRange hours;
  InternedString path;    // relative to the scan root, '/'-separated
  Position start;
  Position end;
  CellPosition cell;      // in a notebook: the cell, and the position in it
  InternedString message; // lower-case, no final period, entities quoted
  InternedString hint;    // imperative fix, e.g. "use 'torch_xla.device()'"; may be empty
  InternedString subject; // the entity found ('torch.nonzero', a kernel's name): groups work items
  InternedString source_line;  // the text of the start line, for code frames (see kSourceLineBytes)
  // The lines of code the finding stands for: a kernel's or device function's length (what of
  // the project has no TPU path); 0 for the use of an API, an op or a library.
  uint32_t code_lines = 0;
  Context context = Context::Unknown;
  // Its context means it blocks nothing (discounts_finding): its severity is info, and it weighs
  // nothing in the score, the effort the verdict weighs, or the verdict. It stays listed.
  bool discounted = false;
  // Made by a check that cannot tell from its file alone whether it holds (a launch of a name
  // another module defines): set aside with the file's links, and reported only when the project
  // links confirm it (FileLinks::Launch).
  bool awaits_link = false;
  // Its work is one change for the whole project, however many places name it (a registered op a
  // config chooses: the op is swapped once in the registry): of the findings of its check and
  // subject, the most expensive is priced and the others cost nothing (Pricing).
  bool priced_once = false;
  // It is the use of a standard op with a known TPU replacement whose kernel a library holds (mmcv's
  // deformable convolution chosen in a config, torchvision's roi_align): the verdict weighs it as
  // it weighs a standard op's kernel in the project (a real rewrite with a known path).
  bool standard_op_use = false;
  // Set by the project links: it is in one of a model zoo's variants (a module of models no other
  // module uses, one of several in its directory), which a port takes or leaves by the models it
  // trains: the variants are priced as alternatives (ModelVariants).
  bool model_variant = false;
  // Set by a frontend when the finding's code runs only with an off-by-default option of its model
  // turned on (`if self.immiscible:`): the project links discount it when no file of the project
  // turns that option on (FileLinks::options_turned_on).
  InternedString optional_option;
  // Files whose findings are part of this one's work, relative to the scan root: an extension
  // module's sources, whose kernels join its work item (plan_work).
  std::vector<std::string> related_paths;
  // The migration plan's work item it belongs to (an index into ScanReport::plan, set by
  // build_report); kNoWorkItem for an analyzer note, or a finding no plan was made with.
  static constexpr uint32_t kNoWorkItem = UINT32_MAX;
  uint32_t work_item = kNoWorkItem;
};

// A finding's source line longer than this many bytes is cut there (at a code point's start) and
// ends in "…": one long line can hold many findings (a 10 MB line of statements holds thousands),
// and each carries its line into every report.
inline constexpr size_t kSourceLineBytes = 512;

// Findings are ordered by path, position, then check ID: the output order whatever --jobs is.
bool finding_less(const Finding& a, const Finding& b);

// Where a finding is, for people: "path:line", or "path:cell 3:2" in a notebook.
std::string location_text(const Finding& f);
// Its line and column as people read them: in its cell in a notebook, else in its file.
Position shown_start(const Finding& f);
Position shown_end(const Finding& f);

// A line a port must change that is no finding of its own: a use of a CUDA API's type, constant or
// macro, a further call of a library function already reported in the file, an #include of the
// API's header, or a further use of a removed framework API in the file (TPU701), on a line where
// its check reports nothing. It joins the work item of its check's findings with the same subject
// (plan.h: attach_touch_lines), so the plan lists every line a port touches, as a translator's
// statistics would, while the findings stay one per call.
struct TouchLine {
  std::string check_id;
  Category category = Category::AnalyzerNote;
  std::string subject;  // the work item's subject, as the check's findings name it
  uint32_t line = 0;    // 1-based
  friend auto operator<=>(const TouchLine&, const TouchLine&) = default;
};

struct SkippedFile {
  std::string path;
  std::string reason;
};

// What a file's code uses of the rest of the project, recorded by its analysis (and cached with
// its result), then joined across files once every file is analyzed (project_links.h): which
// modules import which, which functions of one module another calls, which native sources a
// loader names, and whether each use sits behind a guard.
struct FileLinks {
  enum class Kind : uint8_t {
    Module,  // an import: `target` is a dotted module, or a name in one ("pkg.ops", "pkg.ops.f")
    Name,    // a reference to a name of another module: "pkg.ops.f" (dotted, through the imports)
    File,    // a native source named by a path literal: relative to the scan root ("pkg/ops/k.cu")
  };
  struct Use {
    Kind kind = Kind::Module;
    std::string target;
    uint32_t line = 0;
    // Where its file uses it: Guarded behind a device or backend guard or in an optional import;
    // else the role of the code there (HotPath when handed to a tracing transform).
    Context context = Context::Unknown;
    bool guarded() const { return context == Context::Guarded; }
    int32_t function = -1; // the index in `functions` of the top-level function it is in; -1: none
  };
  // The file's top-level functions, with whether the file itself uses each outside a guard, and
  // the role its file gives it (a function only other modules call takes its role from their uses).
  struct Function {
    std::string name;
    uint32_t first_line = 0;
    uint32_t last_line = 0;
    bool used_here = false;
    Context role = Context::Unknown;
    bool kernel = false;  // a GPU kernel other modules launch as `name[grid](...)` (Triton, Numba CUDA)
  };
  // A launch `name[grid](...)` of a name another module of the project defines ("pkg.ops.kern",
  // through the imports), with its finding: reported when that name is one of its module's
  // kernels (or re-exported from one), whatever the module, so that it is always as fresh as the
  // defining file's facts, cached or not.
  struct Launch {
    std::string target;
    Position at;      // where its finding starts in the code (before a notebook places it)
    Finding finding;  // awaits_link
  };
  std::vector<Use> uses;
  std::vector<Function> functions;
  std::vector<Launch> launches;
  // The keywords its calls pass a value other than False or None (`Diffusion(net, immiscible=True)`,
  // `ComputeLoss(model, overlap=overlap)`): options the project may turn on. Sorted, unique.
  std::vector<std::string> options_turned_on;
  // Whether the file defines a model class (a class deriving from a module base: `torch.nn.Module`,
  // `flax.linen.Module`): what makes it one of a model zoo's variants when no other module uses it.
  bool defines_model = false;
  // The lines of its module-level `if __name__ == "__main__":` block that does not read the command
  // line (0, 0: none, or a script's entry point): a library module's own smoke test.
  uint32_t main_first_line = 0, main_last_line = 0;
  // Whether it is a script: a notebook, or a module whose main block reads the command line.
  bool script = false;
  // The frameworks its imports name (kTorch, kJax, kTf): in a project of JAX or TensorFlow modules,
  // a module of PyTorch alone is a side implementation (project_links.h).
  static constexpr uint8_t kTorch = 1, kJax = 2, kTf = 4;
  uint8_t frameworks = 0;
  bool empty() const {
    return uses.empty() && functions.empty() && launches.empty() && options_turned_on.empty() && !defines_model &&
           main_first_line == 0 && !script && frameworks == 0;
  }
};

struct FileResult {
  std::string path;
  Language language = Language::None;
  bool analyzed = false;
  std::string skip_reason;               // set when !analyzed
  std::vector<Finding> findings;
  std::vector<std::string> missing_headers;  // C/C++/CUDA: #includes that were not found
  // C/C++/CUDA: the files of the scanned tree it #includes, relative to the scan root, sorted:
  // what makes a header's kernels part of the extension whose sources include it (plan.h).
  std::vector<std::string> project_includes;
  std::vector<TouchLine> touches;            // sorted, unique (FindingSink::touch)
  uint32_t code_lines = 0;  // Python, C/C++, CUDA: lines holding code (count_code_lines)
  FileLinks links;          // Python: what it uses of the rest of the project
  // What the worker spent on it in this run: reading, parsing, the checks and the suppressions.
  // 0 when it was not analyzed in this run (the cache answered, or it was skipped).
  std::chrono::nanoseconds analysis_time{0};
};

// Builds findings for one file; the one way checks and frontends create them.
class FindingSink {
 public:
  FindingSink(const SourceFile& file, std::vector<Finding>& out) : file_(file), out_(out) {}

  // Adds a finding of `check` at `span`, with the check's severity and effort; the caller may
  // adjust the returned finding's effort and hours (e.g. scaled by a kernel's size).
  // The message, hint and subject are interned here: a check passes literals, names and
  // formatted text, not owned strings.
  Finding& add(const CheckInfo& check, ByteSpan span, std::string_view message, std::string_view hint = {},
               std::string_view subject = {});

  // Records that the port touches the line of `span`'s start for `check`'s work item named
  // `subject` (see TouchLine), when a frontend keeps touch lines (keep_touches); else nothing.
  void touch(const CheckInfo& check, ByteSpan span, std::string_view subject);
  void keep_touches(std::vector<TouchLine>* touches) { touches_ = touches; }

  const SourceFile& file() const { return file_; }
  // The start byte of each finding added, in order, when a frontend asks for them (to place
  // them in its own model of the file afterwards).
  void keep_offsets(std::vector<uint32_t>* offsets) { offsets_ = offsets; }

 private:
  const SourceFile& file_;
  std::vector<Finding>& out_;
  std::vector<uint32_t>* offsets_ = nullptr;
  std::vector<TouchLine>* touches_ = nullptr;
};

// Sorts touch lines and keeps each once, leaving out those on a line where a finding of the same
// check stands: that line is already listed, by the finding.
void settle_touch_lines(std::vector<TouchLine>& touches, std::span<const Finding> findings);

// A finding about a whole file that has no text to point into (skipped, unreadable).
Finding file_note(const CheckInfo& note, std::string path, std::string_view message);
// Whether a finding is such a note: an analyzer note at 1:1 that quotes no line.
bool is_file_note(const Finding& f);

}  // namespace tpulint
