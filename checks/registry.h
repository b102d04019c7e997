// The catalogue: every check (check_list.inc) plus the analyzer's own notes, in one Registry.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "checks/check_def.h"
#include "core/registry.h"

namespace tpulint::checks {

// Every check definition, in check_list.inc order (sorted by ID; the registry test checks it).
std::span<const CheckDef* const> all_checks();

// The Registry of all check infos and analyzer notes.
const Registry& registry();

// The enabled checks for each frontend, from a list of selected IDs.
std::vector<python::PythonCheckEntry> python_checks(std::span<const std::string_view> selected_ids);
std::vector<cxx::NativeCheckEntry> native_checks(std::span<const std::string_view> selected_ids);
std::vector<cmake::CmakeCheckEntry> cmake_checks(std::span<const std::string_view> selected_ids);

}  // namespace tpulint::checks
