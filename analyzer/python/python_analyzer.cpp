#include "python/python_analyzer.h"

#include <fmt/format.h>

#include "core/analyzer_notes.h"
#include "python/imports.h"

namespace tpulint::python {

PythonAnalyzer::PythonAnalyzer(std::span<const PythonCheckEntry> checks) {
  for (const PythonCheckEntry& e : checks)
    for (Kind k : e.check->kinds()) by_kind_[size_t(k)].push_back(e);
}

namespace {

std::vector<std::string> decorator_names(Node function, const PythonContext& ctx) {
  std::vector<std::string> names;
  Node parent = function.parent();
  if (!parent || parent.kind() != Kind::DecoratedDefinition) return names;
  for (uint32_t i = 0; i < parent.named_child_count(); ++i) {
    Node d = parent.named_child(i);
    if (d.kind() != Kind::Decorator || d.named_child_count() == 0) continue;
    Node expr = d.named_child(0);
    // `@jax.jit(...)`/`@tf.function(jit_compile=True)` name the callee; `@partial(jax.jit, ...)`
    // names partial's first argument.
    if (expr.kind() == Kind::Call) {
      Node callee = expr.field(Field::Function);
      auto q = ctx.qualified_name(callee);
      if (q && *q == "functools.partial") {
        auto args = call_arguments(expr);
        if (!args.positional.empty()) q = ctx.qualified_name(args.positional[0]);
      }
      expr = callee;
      if (q) {
        names.push_back(*q);
        continue;
      }
    }
    if (auto q = ctx.qualified_name(expr))
      names.push_back(*q);
    else
      names.emplace_back(expr.text());
  }
  return names;
}

// The first syntax error (an ERROR or MISSING node) and how many there are.
struct SyntaxErrors {
  Node first;
  size_t count = 0;
};

}  // namespace

void PythonAnalyzer::analyze(const SourceFile& file, FileResult& result) {
  auto tree = parser_.parse(file.text());
  ImportTable imports = ImportTable::build(*tree, package_of(file.path()));
  FindingSink sink(file, result.findings);
  PythonContext ctx(file, *tree, imports, sink);
  std::vector<Frame>& frames = ctx.mutable_frames();
  SyntaxErrors errors;

  // One pre-order walk with a cursor (no recursion: nesting depth is the input's to choose).
  TSTreeCursor cursor = ts_tree_cursor_new(tree->root().raw());
  uint32_t depth = 0;
  bool check_errors = tree->root().has_error();
  for (;;) {
    Node node(ts_tree_cursor_current_node(&cursor), tree.get());
    while (!frames.empty() && frames.back().depth >= depth) frames.pop_back();
    Kind kind = node.kind();
    ctx.set_current(node);

    if (check_errors && (kind == Kind::Error || node.is_missing())) {
      if (!errors.count) errors.first = node;
      ++errors.count;
    }
    for (const PythonCheckEntry& e : by_kind_[size_t(kind)]) {
      ctx.set_check(e.info);
      e.check->check(node, ctx);
    }
    if (kind == Kind::FunctionDefinition || kind == Kind::ClassDefinition || kind == Kind::ForStatement ||
        kind == Kind::WhileStatement) {
      Frame f{kind == Kind::FunctionDefinition ? Frame::Type::Function
              : kind == Kind::ClassDefinition  ? Frame::Type::Class
                                               : Frame::Type::Loop,
              node, {}, depth, {}};
      if (Node body = node.field(Field::Body)) f.body = body.span();
      if (kind == Kind::FunctionDefinition) f.decorators = decorator_names(node, ctx);
      frames.push_back(std::move(f));
    }

    if (ts_tree_cursor_goto_first_child(&cursor)) {
      ++depth;
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        depth = 0;
        break;
      }
      --depth;
    }
    if (depth == 0) break;
  }
  ts_tree_cursor_delete(&cursor);

  if (errors.count) {
    sink.add(notes::kSyntaxError, errors.first.span(),
             errors.count == 1 ? std::string("syntax error; the rest of the file was analyzed")
                               : fmt::format("{} syntax errors, the first here; the rest of the file was analyzed",
                                             errors.count));
  }
}

}  // namespace tpulint::python
