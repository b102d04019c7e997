#include "checks/python/frameworks/tf.h"

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "checks/python/frameworks/code_roles.h"

namespace tpulint::checks::tf {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;

namespace {

bool contains(ByteSpan outer, ByteSpan inner) { return outer.begin <= inner.begin && inner.end <= outer.end; }

// The identifiers of the file named `name`, in source order: a text search first, since most
// names occur rarely.
std::vector<Node> references_to(std::string_view name, const PythonContext& ctx) {
  std::vector<Node> out;
  std::string_view text = ctx.tree().text();
  Node root = ctx.tree().root();
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(name); !name.empty() && at != std::string_view::npos; at = text.find(name, at + 1)) {
    if ((at > 0 && is_ident(text[at - 1])) || (at + name.size() < text.size() && is_ident(text[at + name.size()])))
      continue;
    if (at < root.span().begin || at >= root.span().end) continue;
    Node ref = ctx.tree().named_descendant_for_span({uint32_t(at), uint32_t(at + name.size())});
    if (ref.kind() == Kind::Identifier && ref.text() == name) out.push_back(ref);
  }
  return out;
}

// True when `n` is in the body of a model function, or of a function nested in one. A function's
// parameter defaults and decorators run where it is defined, not in it.
bool inside_model_function(Node n, const PythonContext& ctx) {
  for (Node p = n.parent(); p; p = p.parent())
    if (p.kind() == Kind::FunctionDefinition && contains(p.field(Field::Body).span(), n.span()) &&
        is_model_function(p, ctx))
      return true;
  return false;
}

// True when a function around the node being checked is called by name from model code in the
// same file (a helper of a Keras `call`, or a function nested in one).
bool called_from_model_code(const PythonContext& ctx) {
  const python::Frame* innermost = ctx.enclosing_function();
  if (!innermost) return false;
  for (const python::Frame& f : ctx.frames()) {
    if (f.type != python::Frame::Type::Function) continue;
    if (innermost->body.begin < f.body.begin || innermost->body.begin >= f.body.end) continue;
    ByteSpan own = f.node.span();
    for (Node ref : references_to(f.node.field(Field::Name).text(), ctx)) {
      if (contains(own, ref.span())) continue;  // its name, recursion
      Node call = ref.parent();
      if (call.kind() != Kind::Call || call.field(Field::Function) != ref) continue;
      if (inside_model_function(call, ctx)) return true;
    }
  }
  return false;
}

}  // namespace

bool is_keras_class(Node class_def, const PythonContext& ctx) {
  for (uint32_t i = 0; i < class_def.named_child_count(); ++i) {
    Node bases = class_def.named_child(i);
    if (bases.kind() != Kind::ArgumentList) continue;
    for (uint32_t j = 0; j < bases.named_child_count(); ++j) {
      const auto& q = ctx.qualified_name(bases.named_child(j));
      if (q && (q->starts_with("tensorflow.keras.") || q->starts_with("keras.") || q->starts_with("tf_keras.")))
        return true;
    }
  }
  return false;
}

bool is_model_function(Node function, const PythonContext& ctx) {
  std::string_view name = function.field(Field::Name).text();
  if (name == "model_fn" || name.ends_with("_model_fn")) return true;
  // A loss or step function by name (the `hot_function` rows: `yolo_loss`, `compute_loss`,
  // `train_step`): Keras compiles the loss a model is compiled with into its train step.
  for (const std::string& pattern : code_role_facts().hot_functions)
    if (python::matches_name_pattern(pattern, name)) return true;
  for (const std::string& d : python::decorator_names(function, ctx))
    if (is_compiler("tf", d)) return true;
  if (name != "call" && name != "__call__" && name != "train_step" && name != "test_step" && name != "predict_step")
    return false;
  Node holder = function.parent();
  if (holder.kind() == Kind::DecoratedDefinition) holder = holder.parent();
  Node class_def = holder.parent();
  return class_def.kind() == Kind::ClassDefinition && is_keras_class(class_def, ctx);
}

bool in_model_code(Node n, const PythonContext& ctx) {
  if (!ctx.imports().imports("tensorflow")) return false;
  return inside_model_function(n, ctx) || called_from_model_code(ctx);
}

}  // namespace tpulint::checks::tf
