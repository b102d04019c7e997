#include "core/result_codec.h"

#include <nlohmann/json.hpp>

namespace tpulint {

namespace {

using nlohmann::json;

json finding_to_json(const Finding& f) {
  return {f.check_id, f.check_name, int(f.category), int(f.severity), int(f.effort), f.hours.low, f.hours.high,
          f.path, f.start.line, f.start.column, f.end.line, f.end.column, f.message, f.hint, f.subject, f.source_line,
          f.related_paths};
}

Finding finding_from_json(const json& j) {
  Finding f;
  f.check_id = j.at(0);
  f.check_name = j.at(1);
  f.category = Category(j.at(2).get<int>());
  f.severity = Severity(j.at(3).get<int>());
  f.effort = EffortClass(j.at(4).get<int>());
  f.hours = {j.at(5).get<double>(), j.at(6).get<double>()};
  f.path = j.at(7);
  f.start = {j.at(8).get<uint32_t>(), j.at(9).get<uint32_t>()};
  f.end = {j.at(10).get<uint32_t>(), j.at(11).get<uint32_t>()};
  f.message = j.at(12);
  f.hint = j.at(13);
  f.subject = j.at(14);
  f.source_line = j.at(15);
  f.related_paths = j.at(16).get<std::vector<std::string>>();
  return f;
}

}  // namespace

std::string encode_result(const FileResult& r) {
  json findings = json::array();
  for (const Finding& f : r.findings) findings.push_back(finding_to_json(f));
  json j = {{"language", int(r.language)},        {"analyzed", r.analyzed},
            {"skip_reason", r.skip_reason},        {"findings", findings},
            {"missing_headers", r.missing_headers}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<FileResult> decode_result(const std::string& path, const std::string& text) {
  try {
    json j = json::parse(text);
    FileResult r;
    r.path = path;
    r.language = Language(j.at("language").get<int>());
    r.analyzed = j.at("analyzed").get<bool>();
    r.skip_reason = j.at("skip_reason").get<std::string>();
    for (const json& f : j.at("findings")) r.findings.push_back(finding_from_json(f));
    r.missing_headers = j.at("missing_headers").get<std::vector<std::string>>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace tpulint
