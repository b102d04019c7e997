// CheckDef: a check's metadata plus its logic for one frontend. Each check file defines one
// `extern const CheckDef TPUnnn_name;` and adds one line to check_list.inc.
#pragma once

#include "cmake/cmake_check.h"
#include "core/check_info.h"
#include "cxx/native_check.h"
#include "python/python_check.h"

namespace tpulint::checks {

struct CheckDef {
  CheckInfo info;
  const python::PythonCheck* python = nullptr;  // set for Python checks
  const cxx::NativeCheck* native = nullptr;     // set for C/C++/CUDA checks
  const cmake::CmakeCheck* cmake = nullptr;     // set for checks of CMake build descriptions
};

}  // namespace tpulint::checks
