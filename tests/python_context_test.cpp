// What a Python check sees through PythonContext: qualified names through aliases, the
// enclosing function with its decorators resolved, and the enclosing loops.
#include <catch2/catch.hpp>
#include <map>

#include "python/python_analyzer.h"

using namespace tpulint;
using namespace tpulint::python;

namespace {

struct Seen {
  std::string qualified;  // the callee's qualified name, or "?" when unresolved
  std::string function;   // the enclosing function's name, or "" at module level
  std::vector<std::string> decorators;
  size_t loops = 0;
};

// A test check that records the context of every call it is given.
class RecordingCheck final : public PythonCheck {
 public:
  mutable std::map<std::string, Seen> seen;  // by the call's source text

  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  void check(Node call, PythonContext& ctx) const override {
    Seen s;
    s.qualified = ctx.qualified_name(call.field(Field::Function)).value_or("?");
    if (const Frame* f = ctx.enclosing_function()) {
      s.function = std::string(f->node.field(Field::Name).text());
      s.decorators = f->decorators;
    }
    s.loops = ctx.enclosing_loops().size();
    seen[std::string(call.text())] = s;
  }
};

const CheckInfo kInfo{.id = "TPU299", .name = "recording", .summary = "test", .languages = uint8_t(Language::Python), .hours = {}, .doc = {}};

std::map<std::string, Seen> run(const std::string& code, const std::string& path = "pkg/mod.py") {
  RecordingCheck check;
  PythonCheckEntry entry{&kInfo, &check};
  PythonAnalyzer analyzer(std::span(&entry, 1));
  SourceFile file(path, "/tmp/" + path, Language::Python, code);
  FileResult result;
  analyzer.analyze(file, result);
  return check.seen;
}

}  // namespace

TEST_CASE("calls resolve through every import spelling", "[python][context]") {
  auto seen = run(
      "import torch as T\n"
      "import jax.numpy as jnp\n"
      "from torch import nonzero as nz\n"
      "from torch.nn import functional as F\n"
      "T.nonzero(x)\n"
      "jnp.nonzero(x)\n"
      "nz(x)\n"
      "F.relu(x)\n"
      "local(x)\n"
      "x.cuda()\n");
  CHECK(seen["T.nonzero(x)"].qualified == "torch.nonzero");
  CHECK(seen["jnp.nonzero(x)"].qualified == "jax.numpy.nonzero");
  CHECK(seen["nz(x)"].qualified == "torch.nonzero");
  CHECK(seen["F.relu(x)"].qualified == "torch.nn.functional.relu");
  CHECK(seen["local(x)"].qualified == "?");
  CHECK(seen["x.cuda()"].qualified == "?");
}

TEST_CASE("a star import brings no builtin and no name the code binds itself", "[python][context]") {
  auto seen = run(
      "from sklearn.metrics import *\n"
      "def helper(x):\n"
      "    return x\n"
      "class Model:\n"
      "    pass\n"
      "def fit(self, loss_func, data):\n"
      "    total = len(data)\n"
      "    print(total)\n"
      "    callbacks = make_callbacks()\n"
      "    callbacks.on_epoch_begin(0)\n"
      "    for batch in data:\n"
      "        loss = loss_func(batch)\n"
      "        loss.item()\n"
      "        batch.cuda()\n"
      "    with open_bar() as bar:\n"
      "        bar.close()\n"
      "    try:\n"
      "        pass\n"
      "    except ValueError as err:\n"
      "        err.with_traceback(None)\n"
      "    if (n := size_of(data)):\n"
      "        n.bit_length()\n"
      "    helper(total)\n"
      "    Model()\n"
      "    key = lambda item: item.score()\n"
      "    return roc_auc_score(data, data)\n");
  // Names nothing binds come from the star import.
  CHECK(seen["roc_auc_score(data, data)"].qualified == "sklearn.metrics.roc_auc_score");
  CHECK(seen["make_callbacks()"].qualified == "sklearn.metrics.make_callbacks");
  CHECK(seen["size_of(data)"].qualified == "sklearn.metrics.size_of");
  // Builtins, parameters, locals, loop, `with`, `except` and walrus targets, defs and classes do not.
  for (const char* call : {"len(data)", "print(total)", "callbacks.on_epoch_begin(0)", "loss_func(batch)",
                           "loss.item()", "batch.cuda()", "bar.close()", "err.with_traceback(None)",
                           "n.bit_length()", "helper(total)", "Model()", "item.score()"}) {
    CAPTURE(call);
    CHECK(seen[call].qualified == "?");
  }
}

TEST_CASE("an import inside a function binds only there", "[python][context]") {
  auto seen = run(
      "def f():\n"
      "    import numpy as np\n"
      "    np.unique(a)\n"
      "def g():\n"
      "    np.unique(b)\n");
  CHECK(seen["np.unique(a)"].qualified == "numpy.unique");
  CHECK(seen["np.unique(b)"].qualified == "?");
}

TEST_CASE("the enclosing function's decorators are resolved to qualified names", "[python][context]") {
  auto seen = run(
      "import jax\n"
      "import tensorflow as tf\n"
      "import torch\n"
      "from functools import partial\n"
      "@jax.jit\n"
      "def a(x):\n"
      "    return f1(x)\n"
      "@partial(jax.jit, static_argnums=(1,))\n"
      "def b(x, n):\n"
      "    return f2(x)\n"
      "@tf.function(jit_compile=True)\n"
      "def c(x):\n"
      "    return f3(x)\n"
      "class M:\n"
      "    @torch.compile\n"
      "    @staticmethod\n"
      "    def d(x):\n"
      "        return f4(x)\n"
      "def plain(x):\n"
      "    return f5(x)\n"
      "f6(x)\n");
  CHECK(seen["f1(x)"].decorators == std::vector<std::string>{"jax.jit"});
  CHECK(seen["f2(x)"].decorators == std::vector<std::string>{"jax.jit"});
  CHECK(seen["f3(x)"].decorators == std::vector<std::string>{"tensorflow.function"});
  CHECK(seen["f4(x)"].function == "d");
  CHECK(seen["f4(x)"].decorators == std::vector<std::string>{"torch.compile", "staticmethod"});
  CHECK(seen["f5(x)"].function == "plain");
  CHECK(seen["f5(x)"].decorators.empty());
  CHECK(seen["f6(x)"].function.empty());
  // A decorator call itself runs outside the function it decorates.
  CHECK(seen["partial(jax.jit, static_argnums=(1,))"].function.empty());
}

TEST_CASE("enclosing loops are those of the innermost function whose body holds the node", "[python][context]") {
  auto seen = run(
      "for epoch in range(3):\n"
      "    for batch in loader(epoch):\n"
      "        step(batch)\n"
      "    else:\n"
      "        after_inner()\n"
      "    while running():\n"
      "        def helper():\n"
      "            inside_helper()\n"
      "        tick()\n"
      "top()\n");
  CHECK(seen["step(batch)"].loops == 2);
  CHECK(seen["loader(epoch)"].loops == 1);  // the iterable is evaluated once, outside the inner loop
  CHECK(seen["after_inner()"].loops == 1);  // a for-else runs after the loop
  CHECK(seen["running()"].loops == 1);      // a while condition: counted with the outer loop only
  CHECK(seen["tick()"].loops == 2);
  CHECK(seen["inside_helper()"].loops == 0);  // a function body starts a new context
  CHECK(seen["inside_helper()"].function == "helper");
  CHECK(seen["top()"].loops == 0);
}

TEST_CASE("a syntax error is a TPU901 note and the rest of the file is still checked", "[python][context]") {
  RecordingCheck check;
  PythonCheckEntry entry{&kInfo, &check};
  PythonAnalyzer analyzer(std::span(&entry, 1));
  SourceFile file("m.py", "/tmp/m.py", Language::Python, "import torch\ndef f(x)\n    return x\ntorch.nonzero(y)\n");
  FileResult result;
  analyzer.analyze(file, result);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].check_id == "TPU901");
  CHECK(check.seen.count("torch.nonzero(y)") == 1);
}
