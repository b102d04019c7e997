// The framework facts of the Python semantic model, from checks/data/python_code_roles.tsv.
#pragma once

#include "python/semantic.h"

namespace tpulint::checks {

const python::CodeRoleFacts& code_role_facts();

}  // namespace tpulint::checks
