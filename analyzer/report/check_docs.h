// User docs rendered from check metadata: one Markdown page per check (docs/checks/<ID>.md,
// `tpulint explain`), the catalogue index, and the catalogue table of `tpulint checks`.
#pragma once

#include <string>

#include "core/check_info.h"
#include "core/registry.h"

namespace tpulint::report {

std::string check_doc_markdown(const CheckInfo& check);
// Where a check's page is read on the web: docs/checks/<ID>.md of the project (kToolUrl).
std::string check_doc_url(std::string_view id);
std::string catalogue_markdown(const Registry& registry);  // docs/checks/README.md
std::string catalogue_table(const Registry& registry);     // `tpulint checks`

}  // namespace tpulint::report
