#include "python/python_check.h"

namespace tpulint::python {

PythonContext::PythonContext(const SourceFile& file, const Tree& tree, const ImportTable& imports,
                             FindingSink& sink)
    : file_(file), tree_(tree), imports_(imports), sink_(sink) {}

std::vector<uint32_t> PythonContext::scope_chain() const {
  std::vector<uint32_t> chain;
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->type == Frame::Type::Function && contains_current(*it)) chain.push_back(it->node.span().begin);
  chain.push_back(kModuleScope);
  return chain;
}

std::optional<std::string> PythonContext::qualified_name(Node expr) const {
  // Walk down the attribute chain to its root identifier, then resolve that.
  std::vector<std::string_view> attrs;
  Node n = expr;
  while (n.kind() == Kind::Attribute) {
    Node a = n.field(Field::Attribute);
    if (!a) return std::nullopt;
    attrs.push_back(a.text());
    n = n.field(Field::Object);
  }
  if (n.kind() != Kind::Identifier) return std::nullopt;
  auto chain = scope_chain();
  auto base = imports_.resolve(n.text(), chain);
  if (!base) return std::nullopt;
  std::string out = *base;
  for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
    out += '.';
    out += *it;
  }
  return out;
}

bool PythonContext::contains_current(const Frame& f) const {
  ByteSpan s = current_.span();
  return f.body.begin <= s.begin && s.begin < f.body.end;
}

const Frame* PythonContext::enclosing_function() const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->type == Frame::Type::Function && contains_current(*it)) return &*it;
  return nullptr;
}

std::vector<const Frame*> PythonContext::enclosing_loops() const {
  std::vector<const Frame*> loops;
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->type == Frame::Type::Function && contains_current(*it)) break;
    if (it->type == Frame::Type::Loop && contains_current(*it)) loops.insert(loops.begin(), &*it);
  }
  return loops;
}

Node PythonContext::parent(Node n) const {
  for (size_t i = path_.size(); i-- > 1;)
    if (path_[i] == n) return path_[i - 1];
  return n.parent();
}

Finding& PythonContext::report(Node at, std::string message, std::string hint, std::string subject) {
  return report(at.span(), std::move(message), std::move(hint), std::move(subject));
}

Finding& PythonContext::report(ByteSpan at, std::string message, std::string hint, std::string subject) {
  return sink_.add(*check_, at, std::move(message), std::move(hint), std::move(subject));
}

Node CallArguments::keyword(std::string_view name) const {
  for (const auto& [k, v] : keywords)
    if (k == name) return v;
  return Node();
}

CallArguments call_arguments(Node call) {
  CallArguments out;
  Node args = call.field(Field::Arguments);
  if (!args || args.kind() != Kind::ArgumentList) return out;
  for (uint32_t i = 0; i < args.named_child_count(); ++i) {
    Node a = args.named_child(i);
    switch (a.kind()) {
      case Kind::KeywordArgument:
        if (Node name = a.field(Field::Name)) out.keywords.emplace_back(name.text(), a.field(Field::Value));
        break;
      case Kind::Comment:
        break;
      default:
        if (a.type() == "list_splat" || a.type() == "dictionary_splat")
          out.has_splat = true;
        else
          out.positional.push_back(a);
    }
  }
  return out;
}

std::optional<std::string> string_value(Node node) {
  if (node.kind() != Kind::String) return std::nullopt;
  std::string out;
  for (uint32_t i = 0; i < node.named_child_count(); ++i) {
    Node c = node.named_child(i);
    if (c.kind() == Kind::Interpolation) break;
    if (c.kind() == Kind::StringContent) out += c.text();
  }
  return out;
}

}  // namespace tpulint::python
