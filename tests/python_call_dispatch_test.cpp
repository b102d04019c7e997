// Which calls reach a check of calls: every call, or only those whose callee it names
// (PythonCheck::callee_names), by the callee's own name or the last part of what it resolves to,
// or whose callee resolves into a module it names (PythonCheck::callee_modules).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "python/python_analyzer.h"

using namespace tpulint;
using namespace tpulint::python;

namespace {

// Records the source text of every call it is given, and of every other node of its kinds.
class CallRecorder final : public PythonCheck {
 public:
  CallRecorder(std::vector<Kind> kinds, std::vector<std::string_view> names,
               std::vector<std::string_view> modules = {})
      : kinds_(std::move(kinds)), names_(std::move(names)), modules_(std::move(modules)) {}
  mutable std::vector<std::string> calls, others;

  std::span<const Kind> kinds() const override { return kinds_; }
  std::span<const std::string_view> callee_names() const override { return names_; }
  std::span<const std::string_view> callee_modules() const override { return modules_; }
  void check(Node n, PythonContext& ctx) const override {
    (n.kind() == Kind::Call ? calls : others).emplace_back(n.text());
  }

 private:
  std::vector<Kind> kinds_;
  std::vector<std::string_view> names_;
  std::vector<std::string_view> modules_;
};

const CheckInfo kInfo{.id = "TPU298", .name = "call-recorder", .summary = "test",
                      .languages = uint8_t(Language::Python), .hours = {}, .doc = {}};

void run(const std::string& code, std::vector<const CallRecorder*> checks) {
  std::vector<PythonCheckEntry> entries;
  for (const CallRecorder* c : checks) entries.push_back({&kInfo, c});
  PythonAnalyzer analyzer(entries);
  SourceFile file("pkg/mod.py", "/tmp/pkg/mod.py", Language::Python, code);
  FileResult result;
  analyzer.analyze(file, result);
}

const std::string kCode =
    "import torch\n"
    "from torch import where as w\n"
    "x.item()\n"
    "torch.where(c)\n"
    "w(c)\n"
    "float(y)\n"
    "x.items()\n"
    "itemize(x)\n"
    "fns[0](z)\n"
    "torch.nn.functional.relu(x)\n";

using Calls = std::vector<std::string>;

}  // namespace

TEST_CASE("a check that names no callee is given every call", "[python][dispatch]") {
  CallRecorder every({Kind::Call}, {});
  run(kCode, {&every});
  CHECK(every.calls == Calls{"x.item()", "torch.where(c)", "w(c)", "float(y)", "x.items()", "itemize(x)",
                             "fns[0](z)", "torch.nn.functional.relu(x)"});
}

TEST_CASE("a check that names callees is given the calls whose callee has one of those last names",
          "[python][dispatch]") {
  CallRecorder named({Kind::Call}, {"item", "where", "float"});
  run(kCode, {&named});
  // `w(c)` by what `w` resolves to; `x.items()` and `itemize(x)` only start with a name.
  CHECK(named.calls == Calls{"x.item()", "torch.where(c)", "w(c)", "float(y)"});
}

TEST_CASE("a resolved name is matched by its last part only", "[python][dispatch]") {
  CallRecorder module_part({Kind::Call}, {"functional", "torch", "nn"});
  CallRecorder last_part({Kind::Call}, {"relu"});
  run(kCode, {&module_part, &last_part});
  CHECK(module_part.calls.empty());
  CHECK(last_part.calls == Calls{"torch.nn.functional.relu(x)"});
}

TEST_CASE("checks named by both the callee's own name and its resolution run once each, all of them",
          "[python][dispatch]") {
  // `w(c)` matches "w" by its own name and "where" by its resolution.
  CallRecorder both({Kind::Call}, {"w", "where", "where"});
  CallRecorder own({Kind::Call}, {"w"});
  CallRecorder resolved({Kind::Call}, {"where"});
  CallRecorder every({Kind::Call}, {});
  run("from torch import where as w\nw(c)\n", {&both, &own, &resolved, &every});
  CHECK(both.calls == Calls{"w(c)"});
  CHECK(own.calls == Calls{"w(c)"});
  CHECK(resolved.calls == Calls{"w(c)"});
  CHECK(every.calls == Calls{"w(c)"});
}

TEST_CASE("callee names filter calls only: the check's other kinds reach it as before", "[python][dispatch]") {
  CallRecorder named({Kind::Call, Kind::Subscript}, {"float"});
  run(kCode, {&named});
  CHECK(named.calls == Calls{"float(y)"});
  CHECK(named.others == Calls{"fns[0]"});
}

TEST_CASE("a check that names modules is given the calls whose callee resolves into one", "[python][dispatch]") {
  const std::string code =
      "import torch as T\n"
      "import logging\n"
      "from torch.ops import mylib\n"
      "T.ops.mylib.op(x)\n"
      "mylib.other(x)\n"
      "T.opsy.f(x)\n"
      "ops.mylib.op(x)\n"
      "T.where(c)\n"
      "logging.getLogger(x)\n"
      "logging(x)\n";
  CallRecorder ops({Kind::Call}, {}, {"torch.ops"});
  CallRecorder logs({Kind::Call}, {}, {"logging"});
  // Named by both a module and a last name: still once.
  CallRecorder both({Kind::Call}, {"op", "where"}, {"torch.ops", "torch"});
  run(code, {&ops, &logs, &both});
  // `T.opsy` only starts like the module; `ops.mylib.op` is not imported.
  CHECK(ops.calls == Calls{"T.ops.mylib.op(x)", "mylib.other(x)"});
  CHECK(logs.calls == Calls{"logging.getLogger(x)", "logging(x)"});
  CHECK(both.calls == Calls{"T.ops.mylib.op(x)", "mylib.other(x)", "T.opsy.f(x)", "ops.mylib.op(x)", "T.where(c)"});
}
