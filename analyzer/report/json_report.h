// The JSON report: one document with schema_version, tool, score, verdict, effort, categories,
// findings and files. Key names are a contract (docs/json-report.md); add, never rename.
#pragma once

#include <ostream>

#include "core/scan.h"

namespace tpulint::report {

inline constexpr int kJsonSchemaVersion = 7;  // 2: findings carry context and discounted; 3: work items carry touch lines, and may hold nothing else; 4: the effort holds the bring-up run (bring_up_hours_*); 5: a C/C++/CUDA file's result lists the project files it includes (includes); 6: category framework-version (TPU7xx), and Python work items with touch lines; 7: a finding's effort says how it is priced (priced_once, standard_op_use, model_variant), and test code weighs as tests in any path

void write_json(const ScanReport& report, std::ostream& out);

}  // namespace tpulint::report
