// Validation of the JSON reports against their schemas (docs/report.schema.json, and the
// official SARIF 2.1.0 schema in tests/schemas/), through tests/validate_json.py.
#pragma once

#include <string>

namespace tpulint::testing {

inline const std::string kReportSchema = TPULINT_SOURCE_DIR "/docs/report.schema.json";
inline const std::string kSarifSchema = TPULINT_SOURCE_DIR "/tests/schemas/sarif-schema-2.1.0.json";

// "" if `document` is valid against the schema file; otherwise the validator's messages.
std::string schema_errors(const std::string& schema_path, const std::string& document);

}  // namespace tpulint::testing
