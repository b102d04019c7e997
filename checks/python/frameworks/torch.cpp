#include "checks/python/frameworks/torch.h"

#include <unordered_set>
#include <vector>

namespace tpulint::checks::torch {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;

namespace {

using ClassNames = std::unordered_set<std::string_view>;  // views into the walked text

bool has_module_base(Node class_def, const PythonContext& ctx, const ClassNames& module_classes) {
  for (uint32_t i = 0; i < class_def.named_child_count(); ++i) {
    Node bases = class_def.named_child(i);
    if (bases.kind() != Kind::ArgumentList) continue;
    for (uint32_t j = 0; j < bases.named_child_count(); ++j) {
      Node b = bases.named_child(j);
      if (b.kind() == Kind::KeywordArgument) continue;  // `metaclass=...`
      const auto& q = ctx.qualified_name(b);
      if ((q && is_module_base(*q)) || module_classes.count(python::chain_last_name(b))) return true;
    }
  }
  return false;
}

// The file's classes that derive from torch modules, by name: found once per file, through
// local bases, to a fixed point.
struct ModuleClasses {
  bool built = false;
  ClassNames names;
};

const ClassNames& module_classes(const PythonContext& ctx) {
  ModuleClasses& found = ctx.file_state<ModuleClasses>();
  if (found.built) return found.names;
  found.built = true;
  std::vector<Node> classes;
  const python::Tree& tree = ctx.tree();
  for (uint32_t id = 0; id < tree.node_count(); ++id)
    if (Node n(&tree, id); n.kind() == Kind::ClassDefinition) classes.push_back(n);
  for (bool grew = true; grew;) {
    grew = false;
    for (Node c : classes) {
      std::string_view name = c.field(Field::Name).text();
      if (!found.names.count(name) && has_module_base(c, ctx, found.names)) {
        found.names.insert(name);
        grew = true;
      }
    }
  }
  return found.names;
}

}  // namespace

bool is_module_base(std::string_view qualified) {
  return qualified.starts_with("torch.nn.") || qualified.starts_with("pytorch_lightning.") ||
         qualified.starts_with("lightning.");
}

bool derives_from_module(Node class_def, const PythonContext& ctx) {
  return class_def.kind() == Kind::ClassDefinition && has_module_base(class_def, ctx, module_classes(ctx));
}

}  // namespace tpulint::checks::torch
