#include "report/json_report.h"

#include <array>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "core/version.h"
#include "report/json_writer.h"

namespace tpulint::report {

namespace {

// Two decimals: enough for hours and scores, and free of binary noise (0.35, not 0.35000000000000003).
double round2(double x) { return std::round(x * 100) / 100; }

void hours_members(JsonWriter& w, HoursRange h) {
  w.member("hours_low", round2(h.low)).member("hours_high", round2(h.high));
}

void write_finding(JsonWriter& w, const Finding& f) {
  w.begin_object();
  w.member("id", f.check_id).member("name", f.check_name);
  w.member("category", to_string(f.category)).member("severity", to_string(f.severity));
  w.member("path", f.path).member("line", f.start.line).member("column", f.start.column);
  w.member("end_line", f.end.line).member("end_column", f.end.column);
  if (f.cell.index) {
    w.key("cell").begin_object().member("index", f.cell.index);
    w.member("line", f.cell.start.line).member("column", f.cell.start.column);
    w.member("end_line", f.cell.end.line).member("end_column", f.cell.end.column);
    w.end_object();
  }
  w.member("message", f.message).member("hint", f.hint).member("subject", f.subject);
  w.member("source_line", f.source_line).member("related_paths", f.related_paths);
  w.member("code_lines", f.code_lines);
  w.member("context", to_string(f.context)).member("discounted", f.discounted);
  w.key("effort").begin_object().member("class", to_string(f.effort));
  hours_members(w, f.hours);
  w.member("priced_once", f.priced_once).member("standard_op_use", f.standard_op_use);
  w.member("model_variant", f.model_variant);
  w.end_object();
  w.end_object();
}

// The findings array's elements, `w` inside it (two containers deep). Formatting them is most
// of the report's cost, and the report is written after the scan's workers are done, in its
// serial end: so a long list is cut into blocks, a thread of its own formats the odd ones
// (into kSlots buffers, reused, at most that many blocks ahead) while this one formats the even
// ones and puts each odd one after its even one. The text is the same as written in one go.
void write_findings(JsonWriter& w, std::span<const Finding> findings) {
  constexpr size_t kBlock = 512, kSlots = 2;
  const size_t blocks = (findings.size() + kBlock - 1) / kBlock;
  auto block = [&](size_t b) { return findings.subspan(b * kBlock, std::min(kBlock, findings.size() - b * kBlock)); };
  if (blocks < 2) {
    for (const Finding& f : findings) write_finding(w, f);
    return;
  }
  struct Slot {
    std::string text;
    bool ready = false;  // holds a block the caller has not yet written; else the helper's to fill
  };
  std::array<Slot, kSlots> slots;
  std::mutex mutex;
  std::condition_variable changed;
  std::exception_ptr failure;
  bool stop = false;  // the caller gave up (it threw): the helper must not wait for it
  std::jthread helper([&] {
    try {
      for (size_t b = 1; b < blocks; b += 2) {
        Slot& slot = slots[b / 2 % kSlots];
        {
          std::unique_lock lock(mutex);
          changed.wait(lock, [&] { return !slot.ready || stop; });
          if (stop) return;
        }
        slot.text.clear();
        {
          JsonWriter odd(slot.text, JsonWriter::LaterElements{2});
          for (const Finding& f : block(b)) write_finding(odd, f);
        }
        std::lock_guard lock(mutex);
        slot.ready = true;
        changed.notify_all();
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      failure = std::current_exception();
      changed.notify_all();
    }
  });
  try {
    for (size_t b = 0; b < blocks; b += 2) {
      for (const Finding& f : block(b)) write_finding(w, f);
      if (b + 1 == blocks) break;
      Slot& slot = slots[b / 2 % kSlots];  // block b + 1's
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return slot.ready || failure; });
        if (failure) std::rethrow_exception(failure);
      }
      w.elements(slot.text, block(b + 1).size());
      std::lock_guard lock(mutex);
      slot.ready = false;
      changed.notify_all();
    }
  } catch (...) {
    std::lock_guard lock(mutex);
    stop = true;
    changed.notify_all();
    throw;
  }
}

}  // namespace

// Written as it goes (JsonWriter), not built and then dumped: the report of a large scan has
// tens of thousands of findings, and building the document cost more than analyzing a cached tree.
void write_json(const ScanReport& report, std::ostream& out) {
  const ScoreSummary& s = report.score;
  JsonWriter w(out);
  w.begin_object();
  w.member("schema_version", kJsonSchemaVersion);
  w.key("tool").begin_object().member("name", kToolName).member("version", kToolVersion).end_object();
  w.member("score", round2(s.score));
  w.member("verdict", to_string(s.verdict));
  w.member("verdict_reason", s.verdict_reason);
  w.key("effort").begin_object();
  hours_members(w, s.hours);
  w.member("days_low", round2(s.hours.low / 8)).member("days_high", round2(s.hours.high / 8));
  w.member("bring_up_hours_low", s.bring_up.low).member("bring_up_hours_high", s.bring_up.high).end_object();
  w.key("core_effort").begin_object();
  hours_members(w, s.core_hours);
  w.member("days_low", round2(s.core_hours.low / 8)).member("days_high", round2(s.core_hours.high / 8));
  w.member("bring_up_hours_low", s.bring_up.low).member("bring_up_hours_high", s.bring_up.high);
  w.member("code_lines", s.core_lines);
  w.member("gpu_only_lines", s.shares.gpu_lines).member("no_tpu_path_lines", s.shares.novel_lines).end_object();
  w.key("categories").begin_array();
  for (const CategoryScore& c : s.categories) {
    w.begin_object().member("category", to_string(c.category)).member("score", round2(c.score));
    w.member("findings", c.findings);
    hours_members(w, c.hours);
    w.end_object();
  }
  w.end_array();
  w.key("scoring").begin_object().member("auxiliary_weight", report.path_weights.auxiliary);
  w.key("path_weights").begin_array();
  for (const auto& [glob, weight] : report.path_weights.rules)
    w.begin_object().member("glob", glob).member("weight", weight).end_object();
  w.end_array().end_object();
  w.key("findings").begin_array();
  write_findings(w, report.findings);
  w.end_array();
  w.key("work_items").begin_array();
  for (const WorkItem& item : report.plan) {
    w.begin_object();
    w.member("subject", item.subject).member("category", to_string(item.category));
    w.member("checks", item.check_ids).member("effort", to_string(item.effort));
    w.member("findings", item.findings).member("files", item.files);
    w.member("score_gain", round2(item.score_gain)).member("first_location", item.first_location);
    w.member("parts", item.parts);
    hours_members(w, item.hours);
    w.member("touch_lines", item.touch_lines);
    w.key("touched").begin_array();
    for (const WorkItem::TouchedFile& t : item.touched)
    {
      w.begin_object().member("path", t.path).key("lines").begin_array();
      for (uint32_t line : t.lines) w.value(line);
      w.end_array().end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("hidden_findings").begin_array();
  for (const ScanReport::Hidden& h : report.hidden)
    w.begin_object().member("reason", h.why).member("count", h.count).end_object();
  w.end_array();
  w.key("files").begin_object().member("analyzed", report.analyzed);
  w.key("skipped").begin_array();
  for (const SkippedFile& sk : report.skipped)
    w.begin_object().member("path", sk.path).member("reason", sk.reason).end_object();
  w.end_array();
  w.key("unanalyzed").begin_array();
  for (const SkippedFile& sk : report.unanalyzed)
    w.begin_object().member("path", sk.path).member("reason", sk.reason).end_object();
  w.end_array();
  w.key("missing_headers").begin_array();
  for (const FileSummary& f : report.files)
    if (!f.missing_headers.empty())
      w.begin_object().member("path", f.path).member("headers", f.missing_headers).end_object();
  w.end_array();
  w.key("results").begin_array();
  for (const FileSummary& f : report.files) {
    w.begin_object().member("path", f.path).member("language", to_string(f.language));
    w.member("analyzed", f.analyzed).member("code_lines", f.code_lines).member("findings", f.findings);
    hours_members(w, f.hours);
    if (!f.analyzed) w.member("skip_reason", f.skip_reason);
    if (!f.project_includes.empty()) w.member("includes", f.project_includes);
    w.end_object();
  }
  w.end_array().end_object();
  w.end_object();
  w.flush();
  out << "\n";
}

}  // namespace tpulint::report
