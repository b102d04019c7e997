#include "checks/registry.h"

#include <algorithm>

#include "core/analyzer_notes.h"

namespace tpulint::checks {

#define TPULINT_CHECK(symbol) extern const CheckDef symbol;
#include "checks/check_list.inc"
#undef TPULINT_CHECK

std::span<const CheckDef* const> all_checks() {
#define TPULINT_CHECK(symbol) &symbol,
  static const CheckDef* const kAll[] = {
#include "checks/check_list.inc"
  };
#undef TPULINT_CHECK
  return kAll;
}

const Registry& registry() {
  static const Registry r = [] {
    std::vector<const CheckInfo*> infos;
    for (const CheckDef* def : all_checks()) infos.push_back(&def->info);
    for (const CheckInfo* note : notes::kAll) infos.push_back(note);
    return Registry(std::move(infos));
  }();
  return r;
}

namespace {
bool is_selected(std::span<const std::string_view> ids, std::string_view id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}
}  // namespace

std::vector<python::PythonCheckEntry> python_checks(std::span<const std::string_view> ids) {
  std::vector<python::PythonCheckEntry> out;
  for (const CheckDef* def : all_checks())
    if (def->python && is_selected(ids, def->info.id)) out.push_back({&def->info, def->python});
  return out;
}

std::vector<cxx::NativeCheckEntry> native_checks(std::span<const std::string_view> ids) {
  std::vector<cxx::NativeCheckEntry> out;
  for (const CheckDef* def : all_checks())
    if (def->native && is_selected(ids, def->info.id)) out.push_back({&def->info, def->native});
  return out;
}

std::vector<cmake::CmakeCheckEntry> cmake_checks(std::span<const std::string_view> ids) {
  std::vector<cmake::CmakeCheckEntry> out;
  for (const CheckDef* def : all_checks())
    if (def->cmake && is_selected(ids, def->info.id)) out.push_back({&def->info, def->cmake});
  return out;
}

}  // namespace tpulint::checks
