// PyTorch concepts the Python checks share: which classes are torch modules.
#pragma once

#include <string_view>

#include "python/python_check.h"

namespace tpulint::checks::torch {

// True when `qualified` names a class whose subclasses are torch modules: under torch.nn
// (`torch.nn.Module`, `torch.nn.Sequential`) or a Lightning module (`pytorch_lightning.`,
// `lightning.`: a LightningModule is an nn.Module).
bool is_module_base(std::string_view qualified);

// True when `class_def` derives from a torch module: through a base that is_module_base, or
// through a class of the same file, by name, that does (`class Block(MyBase)`, `class
// MyBase(nn.Module)`).
bool derives_from_module(python::Node class_def, const python::PythonContext& ctx);

}  // namespace tpulint::checks::torch
