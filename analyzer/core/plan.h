// The migration plan: findings grouped into work items (one per kernel or extension, per
// library, per op or repeated pattern), each with its effort and the score it recovers, the
// cheapest big wins first.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/score.h"

namespace tpulint {

struct WorkItem {
  std::string subject;                 // the kernel, library, op or pattern; the check's name if none
  Category category = Category::AnalyzerNote;
  std::vector<std::string> check_ids;  // sorted, unique
  EffortClass effort = EffortClass::None;  // the highest among its findings
  size_t findings = 0;
  size_t files = 0;
  HoursRange hours;
  double score_gain = 0;  // points the score rises when every finding of the item is fixed (not rounded)
  std::string first_location;  // where its first finding is, for people (location_text)
  std::string first_path;      // and its parts, and what it says
  uint32_t first_line = 0;     // the line in the file (in a notebook, in its JSON text)
  std::string first_message;
  Severity severity = Severity::Info;  // the highest among its findings
  // For an extension module: the subjects of the findings in its sources that joined it (its
  // kernels, launches, CUDA calls), sorted. Each counts once, in this item only.
  std::vector<std::string> parts;
  // The lines its port touches besides its findings' (TouchLine: a CUDA API's types, constants,
  // #includes), by file in path order, each file's lines in order; `touch_lines` counts them.
  // An item may hold touch lines only (`findings` 0): an API whose names a file uses but whose
  // calls it does not make.
  struct TouchedFile {
    std::string path;
    std::vector<uint32_t> lines;
  };
  std::vector<TouchedFile> touched;
  size_t touch_lines = 0;
};

// One file's touch lines, for attach_touch_lines.
struct FileTouches {
  std::string_view path;
  std::span<const TouchLine> touches;  // sorted (settle_touch_lines)
};

// "a, b, c and 4 more" for a work item's parts, "" when it has none: what reports print after
// the subject of an extension module's item.
std::string parts_summary(const WorkItem& item, size_t max_names = 4);

// What identifies a compiled extension module across the files that build and import it: its
// last component (`import x_cuda`, `from pkg import x_cuda` and a CMake target `x_cuda` name
// one module), except `_C`, which every package names its own: "pkg._C" stays whole.
std::string_view extension_key(std::string_view module);

// Groups findings by (category, subject): a kernel's definition and its launches are one item,
// each library is one item, each op or pattern is one item. Findings without a subject group
// by check. A finding with related paths (an extension module and its sources) takes the
// findings located in those files into its item: the module and the kernels it builds are one
// piece of work, whatever number of Python call sites import it. A module declared by its last
// component only (a CMake target: where it is installed is decided elsewhere) also takes the
// findings whose dotted subject has that extension key (`pkg.x_cuda`, an import of it), unless
// a declaration names that dotted module exactly.
// Ordered by score gained per engineer-hour, then by gain, then by subject. `code` as for
// compute_score. The same issue twice on one line (same check and subject) counts once.
// `item_of`, when given, receives each finding's item (an index into the result), or
// Finding::kNoWorkItem for an analyzer note: how a report lists the findings of each item.
std::vector<WorkItem> plan_work(std::span<const Finding> findings, const PathWeights& weights, CoreCode code = {},
                                std::vector<uint32_t>* item_of = nullptr);

// One file's project includes (FileResult::project_includes), for credit_included_headers.
struct FileIncludes {
  std::string_view path;
  std::span<const std::string> includes;
};

// Adds to each extension module's related paths (its sources) the files of the scanned tree
// those sources #include, directly or through one another, and sorts them: a kernel in a header
// its sources include is the extension's work (plan_work), not an item of its own. `files` by path.
void credit_included_headers(std::vector<Finding>& findings, std::span<const FileIncludes> files);

// Adds the files' touch lines (given in path order) to the items of their check's category and
// subject, or, in the sources of an extension module, to the module's item, as plan_work does
// with findings (`findings`: the plan's, their work_item set). Touch lines with no such item make
// one of their own, after the plan's others (so the findings' work_item indexes stand): no
// finding, no hours, no score, its first touched line as its first location.
void attach_touch_lines(std::vector<WorkItem>& plan, std::span<const Finding> findings,
                        std::span<const FileTouches> files);

}  // namespace tpulint
