// The traced scope of a JAX function (dyn::jax_traced_scope) is kept from one node to the next
// in the same function: it must not reach another function, nor the function at the same place
// in the next file one analyzer walks.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "checks/registry.h"
#include "python/python_analyzer.h"

using namespace tpulint;

namespace {

// TPU212 reports a Python branch on a traced value: it asks for the scope at every branch.
class Tpu212 {
 public:
  Tpu212() : entries_(checks::python_checks(std::vector<std::string_view>{"TPU212"})), analyzer_(entries_) {
    REQUIRE(entries_.size() == 1);
  }
  // The findings in `code`, analyzed after every file before it.
  std::vector<Finding> findings(const std::string& code) {
    SourceFile file("pkg/mod.py", "/tmp/pkg/mod.py", Language::Python, code);
    FileResult result;
    analyzer_.analyze(file, result);
    return result.findings;
  }
  std::vector<uint32_t> lines(const std::string& code) {
    std::vector<uint32_t> out;
    for (const Finding& f : findings(code)) out.push_back(f.start.line);
    return out;
  }

 private:
  std::vector<python::PythonCheckEntry> entries_;
  python::PythonAnalyzer analyzer_;
};

using Lines = std::vector<uint32_t>;

// The same layout, node for node; only the decorator's name differs.
std::string function_under(std::string_view decorator) {
  return "import jax\n"
         "@jax." + std::string(decorator) + "\n"
         "def f(x):\n"
         "    if x > 0:\n"
         "        return x\n"
         "    while x < 0:\n"
         "        x = x + 1\n"
         "    return x\n";
}

}  // namespace

TEST_CASE("a traced scope is not carried into the next file's function at the same place", "[checks][jax]") {
  Tpu212 check;
  CHECK(check.lines(function_under("jit")) == Lines{4, 6});
  CHECK(check.lines(function_under("named_call")).empty());
  CHECK(check.lines(function_under("jit")) == Lines{4, 6});
}

TEST_CASE("a traced scope is not carried into the next function of a file", "[checks][jax]") {
  Tpu212 check;
  CHECK(check.lines("import jax\n"
                    "@jax.jit\n"
                    "def f(x):\n"
                    "    if x > 0:\n"
                    "        return x\n"
                    "    return -x\n"
                    "def g(x):\n"
                    "    if x > 0:\n"
                    "        return x\n"
                    "    return -x\n"
                    "@jax.vmap\n"
                    "def h(x):\n"
                    "    if x > 0:\n"
                    "        return x\n"
                    "    def inner(y):\n"
                    "        if y > 0:\n"
                    "            return y\n"
                    "    if x < 0:\n"
                    "        return x\n"
                    "    return -x\n") == Lines{4, 13, 16, 18});
}

TEST_CASE("a function passed by name to transforms is traced under the first in the source, less its static arguments",
          "[checks][jax]") {
  const std::string body =
      "import jax\n"
      "def f(x, n):\n"
      "    if x > 0:\n"
      "        return x\n"
      "    if n > 0:\n"
      "        return x\n"
      "    return -x\n";
  Tpu212 check;
  // vmap's `f` comes first in the source, though the jit call holding it is met first.
  auto f = check.findings(body + "h = jax.jit(jax.vmap(f), f)\n");
  REQUIRE(f.size() == 2);
  CHECK(f[0].start.line == 3);
  CHECK(f[0].message.find("under 'jax.vmap'") != std::string::npos);
  CHECK(f[1].start.line == 5);
  // Passed to jit with its second argument static: `n` is a Python value.
  f = check.findings(body + "g = jax.jit(f, static_argnums=1)\n");
  REQUIRE(f.size() == 1);
  CHECK(f[0].start.line == 3);
  CHECK(f[0].message.find("under 'jax.jit'") != std::string::npos);
  // By keyword, or from another scope, it is not this function that is traced.
  CHECK(check.lines(body + "g = jax.jit(fun=f)\n").empty());
  CHECK(check.lines(body + "def other():\n    def f(y):\n        return y\n    return jax.jit(f)\n").empty());
}
