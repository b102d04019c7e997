// python::ImportTable: aliases, submodules, from-imports, star imports, relative imports,
// function scopes, import guards; package_of() and imported_modules().
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/imports.h"
#include "python/syntax.h"

using namespace tpulint;
using namespace tpulint::python;

namespace {

// A parsed Python source and its import table. Not movable: the tree borrows the text.
class Py {
 public:
  Py(std::string source, std::string_view package = "pkg")
      : text_(std::move(source)), tree_(Parser().parse(text_)), table_(ImportTable::build(*tree_, package)) {}
  Py(const Py&) = delete;
  Py& operator=(const Py&) = delete;

  const ImportTable& table() const { return table_; }
  const Tree& tree() const { return *tree_; }

  // Resolves at module scope.
  std::optional<std::string> at_module(std::string_view name) const {
    uint32_t scopes[] = {kModuleScope};
    return table_.resolve(name, scopes);
  }
  // Resolves inside the named functions, innermost first, then the module.
  std::optional<std::string> in(std::vector<std::string_view> functions, std::string_view name) const {
    std::vector<uint32_t> scopes;
    for (std::string_view f : functions) scopes.push_back(function_scope(f));
    scopes.push_back(kModuleScope);
    return table_.resolve(name, scopes);
  }
  // The scope id of a function: its function_definition node's start byte.
  uint32_t function_scope(std::string_view name) const {
    Node n = find_function(tree_->root(), name);
    REQUIRE(n);
    return n.span().begin;
  }
  // The first statement of the module.
  Node first_statement() const { return tree_->root().named_child(0); }

 private:
  static Node find_function(Node n, std::string_view name) {
    if (n.kind() == Kind::FunctionDefinition && n.field(Field::Name).text() == name) return n;
    for (uint32_t i = 0; i < n.named_child_count(); ++i)
      if (Node found = find_function(n.named_child(i), name)) return found;
    return Node();
  }

  std::string text_;
  std::unique_ptr<Tree> tree_;
  ImportTable table_;
};

const ImportBinding* binding(const ImportTable& t, std::string_view local) {
  const ImportBinding* found = nullptr;
  for (const ImportBinding& b : t.bindings())
    if (b.local == local) found = &b;
  return found;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("import x as y binds the alias to the module", "[python][imports]") {
  Py py("import torch as T\nimport jax.numpy as jnp\nimport torch.nn.functional as F\n");
  CHECK(py.at_module("T") == "torch");
  CHECK(py.at_module("jnp") == "jax.numpy");
  CHECK(py.at_module("F") == "torch.nn.functional");
  // An aliased import binds only the alias.
  CHECK_FALSE(py.at_module("torch"));
  CHECK_FALSE(py.at_module("jax"));
  CHECK_FALSE(py.at_module("functional"));
  CHECK_FALSE(py.at_module("nonzero"));
}

TEST_CASE("import a.b binds the top-level package", "[python][imports]") {
  Py py("import torch.cuda\nimport os.path\n");
  CHECK(py.at_module("torch") == "torch");
  CHECK(py.at_module("os") == "os");
  CHECK_FALSE(py.at_module("cuda"));
  CHECK_FALSE(py.at_module("path"));
  CHECK(py.table().imports("torch.cuda"));
  CHECK(py.table().imports("os.path"));
}

TEST_CASE("import a, b binds each name", "[python][imports]") {
  Py py("import os, torch as T, numpy\n");
  CHECK(py.at_module("os") == "os");
  CHECK(py.at_module("T") == "torch");
  CHECK(py.at_module("numpy") == "numpy");
  REQUIRE(py.table().bindings().size() == 3);
  for (const ImportBinding& b : py.table().bindings()) {
    INFO(b.local);
    CHECK(b.statement.kind() == Kind::ImportStatement);
    CHECK(b.statement == py.first_statement());
    CHECK_FALSE(b.guarded);
  }
}

TEST_CASE("from m import x as y binds the qualified name", "[python][imports]") {
  Py py("from torch import nonzero as nz, where\nfrom torch.nn import functional as F\nfrom jax import numpy\n");
  CHECK(py.at_module("nz") == "torch.nonzero");
  CHECK(py.at_module("where") == "torch.where");
  CHECK(py.at_module("F") == "torch.nn.functional");
  CHECK(py.at_module("numpy") == "jax.numpy");
  CHECK_FALSE(py.at_module("nonzero"));
  CHECK_FALSE(py.at_module("torch"));
  CHECK_FALSE(py.at_module("functional"));
  const ImportBinding* b = binding(py.table(), "nz");
  REQUIRE(b);
  CHECK(b->target == "torch.nonzero");
  CHECK(b->statement.kind() == Kind::ImportFromStatement);
}

TEST_CASE("parenthesized from-imports over several lines", "[python][imports]") {
  Py py("from torch import (\n    nonzero,  # a comment\n    where as w,\n)\n");
  CHECK(py.at_module("nonzero") == "torch.nonzero");
  CHECK(py.at_module("w") == "torch.where");
}

TEST_CASE("a star import resolves any unbound name through the module", "[python][imports]") {
  Py py("from torch import *\n");
  CHECK(py.at_module("nonzero") == "torch.nonzero");
  CHECK(py.at_module("anything") == "torch.anything");
  CHECK(py.table().imports("torch"));

  SECTION("the last star import is tried first") {
    Py two("from numpy import *\nfrom torch import *\n");
    CHECK(two.at_module("where") == "torch.where");
  }
  SECTION("an explicit binding beats a star import") {
    Py mixed("from torch import *\nfrom numpy import where\nimport jax.numpy as jnp\n");
    CHECK(mixed.at_module("where") == "numpy.where");
    CHECK(mixed.at_module("jnp") == "jax.numpy");
    CHECK(mixed.at_module("nonzero") == "torch.nonzero");
  }
  SECTION("a star import at module scope is seen from a function") {
    Py f("from torch import *\ndef f():\n    import numpy as np\n    return nonzero(np.ones(1))\n");
    CHECK(f.in({"f"}, "nonzero") == "torch.nonzero");
    CHECK(f.in({"f"}, "np") == "numpy");
  }
  SECTION("without imports nothing resolves") {
    Py none("x = 1\ndef f():\n    return x\n");
    CHECK_FALSE(none.at_module("x"));
    CHECK_FALSE(none.in({"f"}, "x"));
    CHECK(none.table().bindings().empty());
  }
}

TEST_CASE("package_of gives a file's dotted package", "[python][imports]") {
  CHECK(package_of("pkg/models/net.py") == "pkg.models");
  CHECK(package_of("pkg/models/__init__.py") == "pkg.models");
  CHECK(package_of("pkg/net.py") == "pkg");
  CHECK(package_of("net.py") == "");
  CHECK(package_of("a/b/c/d.pyi") == "a.b.c");
}

TEST_CASE("relative imports resolve against the file's package", "[python][imports]") {
  std::string package = package_of("pkg/models/net.py");
  REQUIRE(package == "pkg.models");
  Py py("from .ops import nms\n"
        "from ..utils import x\n"
        "from . import layers\n"
        "from .ops.cuda import roi_align as ra\n"
        "from .. import config\n",
        package);
  CHECK(py.at_module("nms") == "pkg.models.ops.nms");
  CHECK(py.at_module("x") == "pkg.utils.x");
  CHECK(py.at_module("layers") == "pkg.models.layers");
  CHECK(py.at_module("ra") == "pkg.models.ops.cuda.roi_align");
  CHECK(py.at_module("config") == "pkg.config");
  CHECK(py.table().imports("pkg.models.ops"));
  CHECK(py.table().imports("pkg.utils"));
  CHECK(py.table().imports("pkg"));
  CHECK_FALSE(py.table().imports("ops"));
  CHECK_FALSE(py.table().imports("utils"));
}

TEST_CASE("relative imports above the scan root never resolve to an absolute module", "[python][imports]") {
  // A top-level file: `.flash_attn` is the project's own module, not the flash_attn library.
  Py py("from .flash_attn import flash_attn_func\nfrom . import apex\n", package_of("train.py"));
  auto f = py.at_module("flash_attn_func");
  REQUIRE(f);
  CHECK(*f != "flash_attn.flash_attn_func");
  CHECK_FALSE(py.table().imports("flash_attn"));
  auto a = py.at_module("apex");
  REQUIRE(a);
  CHECK(*a != "apex");
  CHECK_FALSE(py.table().imports("apex"));
}

TEST_CASE("an import inside a function binds only in that function", "[python][imports]") {
  Py py("import numpy as np\n"
        "\n"
        "def f(x):\n"
        "    import torch as T\n"
        "    return T.nonzero(x)\n"
        "\n"
        "def g():\n"
        "    return np.zeros(1)\n");
  uint32_t f = py.function_scope("f");
  CHECK(f == py.tree().text().find("def f"));
  CHECK(py.in({"f"}, "T") == "torch");
  CHECK_FALSE(py.at_module("T"));
  CHECK_FALSE(py.in({"g"}, "T"));
  // Module bindings are seen from functions.
  CHECK(py.in({"f"}, "np") == "numpy");
  CHECK(py.in({"g"}, "np") == "numpy");
  // A scope chain without the module scope sees only the function.
  uint32_t only_f[] = {f};
  CHECK(py.table().resolve("T", only_f) == "torch");
  CHECK_FALSE(py.table().resolve("np", only_f));
  // An unknown scope id is skipped.
  uint32_t unknown[] = {12345, kModuleScope};
  CHECK(py.table().resolve("np", unknown) == "numpy");
  CHECK_FALSE(py.table().resolve("T", unknown));
}

TEST_CASE("function scopes: shadowing, nesting, blocks, decorators and methods", "[python][imports]") {
  Py py("import numpy as np\n"
        "\n"
        "def outer():\n"
        "    import jax.numpy as np\n"
        "    import torch\n"
        "    def inner():\n"
        "        from torch import nonzero as nz\n"
        "        return nz(np.ones(1))\n"
        "    return inner\n"
        "\n"
        "@decorate\n"
        "def decorated():\n"
        "    if True:\n"
        "        for _ in range(2):\n"
        "            with ctx():\n"
        "                import torch.nn.functional as F\n"
        "    return F\n"
        "\n"
        "class Model:\n"
        "    def forward(self, x):\n"
        "        import torch_xla.core.xla_model as xm\n"
        "        return xm.xla_device()\n"
        "\n"
        "async def run():\n"
        "    import asyncio as aio\n");
  // The function's own import shadows the module's.
  CHECK(py.at_module("np") == "numpy");
  CHECK(py.in({"outer"}, "np") == "jax.numpy");
  // An inner function sees its own imports, then the enclosing function's, then the module's.
  CHECK(py.in({"inner", "outer"}, "nz") == "torch.nonzero");
  CHECK(py.in({"inner", "outer"}, "np") == "jax.numpy");
  CHECK(py.in({"inner", "outer"}, "torch") == "torch");
  CHECK_FALSE(py.in({"outer"}, "nz"));
  CHECK_FALSE(py.at_module("torch"));
  // Imports nested in blocks bind in the function; the scope is the function_definition
  // (the `def`), not the decorated_definition (the `@`).
  CHECK(py.in({"decorated"}, "F") == "torch.nn.functional");
  CHECK(py.function_scope("decorated") == py.tree().text().find("def decorated"));
  uint32_t at_decorator[] = {uint32_t(py.tree().text().find("@decorate"))};
  CHECK_FALSE(py.table().resolve("F", at_decorator));
  // Methods are functions.
  CHECK(py.in({"forward"}, "xm") == "torch_xla.core.xla_model");
  CHECK_FALSE(py.at_module("xm"));
  // async def too.
  CHECK(py.in({"run"}, "aio") == "asyncio");
  CHECK_FALSE(py.at_module("aio"));
}

TEST_CASE("bindings are flow-insensitive and the later import wins", "[python][imports]") {
  Py py("def f():\n"
        "    y = jnp.zeros(3)\n"      // used before the import: still bound in all of f
        "    import jax.numpy as jnp\n"
        "    return y\n"
        "import numpy as xp\n"
        "if cond:\n"
        "    import cupy as xp\n");
  CHECK(py.in({"f"}, "jnp") == "jax.numpy");
  CHECK(py.at_module("xp") == "cupy");

  Py again("from torch import where\nimport numpy\nfrom numpy import where\n");
  CHECK(again.at_module("where") == "numpy.where");
}

TEST_CASE("imports() matches a module and its submodules only", "[python][imports]") {
  Py py("import torch.nn\nfrom jax import numpy\nimport torchvision.ops as ops\n");
  CHECK(py.table().imports("torch"));
  CHECK(py.table().imports("torch.nn"));
  CHECK_FALSE(py.table().imports("tor"));
  CHECK_FALSE(py.table().imports("torch.n"));
  CHECK_FALSE(py.table().imports("torch.nn.functional"));  // not imported
  CHECK(py.table().imports("jax"));
  CHECK(py.table().imports("jax.numpy"));  // `from jax import numpy` names jax.numpy
  CHECK_FALSE(py.table().imports("numpy"));
  CHECK(py.table().imports("torchvision"));
  CHECK(py.table().imports("torchvision.ops"));
  CHECK_FALSE(py.table().imports("ops"));

  Py vision("import torchvision\nimport torch_xla\nimport torch2\n");
  CHECK_FALSE(vision.table().imports("torch"));  // "torchvision" is not "torch"
  CHECK(vision.table().imports("torchvision"));
  CHECK(vision.table().imports("torch_xla"));

  Py in_function("def f():\n    from torch.utils import data\n");
  CHECK(in_function.table().imports("torch"));
  CHECK(in_function.table().imports("torch.utils.data"));

  Py none("x = 1\n");
  CHECK_FALSE(none.table().imports("torch"));
  CHECK_FALSE(none.table().imports(""));

  // Names that sort between a module and its submodules ("a_b" and "ab" after "a", "a.b" after
  // them), and a name of 100,000 parts (its prefixes were each kept, 10 GB of them).
  std::string long_name = "z";
  for (int i = 0; i < 100000; ++i) long_name += ".m";
  Py sorted("import a_b, ab\nfrom a.b import c\nimport " + long_name + "\n");
  CHECK(sorted.table().imports("a"));
  CHECK(sorted.table().imports("a.b"));
  CHECK(sorted.table().imports("a.b.c"));
  CHECK(sorted.table().imports("ab"));
  CHECK_FALSE(sorted.table().imports("a.c"));
  CHECK_FALSE(sorted.table().imports("a_"));
  CHECK(sorted.table().imports("z.m.m"));
  CHECK(sorted.table().imports(long_name));
  CHECK_FALSE(sorted.table().imports(long_name + ".m"));
}

TEST_CASE("an import in a try body with an ImportError handler is guarded", "[python][imports]") {
  Py py("try:\n"
        "    import apex\n"
        "except ImportError:\n"
        "    apex = None\n"
        "import torch\n");
  const ImportBinding* apex = binding(py.table(), "apex");
  REQUIRE(apex);
  CHECK(apex->guarded);
  CHECK(apex->target == "apex");
  const ImportBinding* torch = binding(py.table(), "torch");
  REQUIRE(torch);
  CHECK_FALSE(torch->guarded);
  CHECK(py.at_module("apex") == "apex");  // guarded imports still resolve
}

TEST_CASE("which handlers make an import guarded", "[python][imports]") {
  auto guarded = [](std::string handler, std::string body = "    import flash_attn\n") {
    Py py("try:\n" + body + handler + "    pass\n");
    const ImportBinding* b = binding(py.table(), "flash_attn");
    REQUIRE(b);
    return b->guarded;
  };
  CHECK(guarded("except ImportError:\n"));
  CHECK(guarded("except ImportError as e:\n"));
  CHECK(guarded("except ModuleNotFoundError:\n"));
  CHECK(guarded("except (ImportError, OSError):\n"));
  CHECK(guarded("except (OSError, ModuleNotFoundError) as e:\n"));
  CHECK(guarded("except Exception:\n"));
  CHECK(guarded("except:\n"));
  CHECK(guarded("except ValueError:\n    pass\nexcept ImportError:\n"));
  CHECK_FALSE(guarded("except ValueError:\n"));
  CHECK_FALSE(guarded("except (KeyError, ValueError):\n"));
  CHECK_FALSE(guarded("finally:\n"));
  // Nested statements inside the guarded body are guarded too.
  CHECK(guarded("except ImportError:\n", "    if True:\n        import flash_attn\n"));
  CHECK(guarded("except ImportError:\n", "    def load():\n        import flash_attn\n"));
}

TEST_CASE("the fallback in the handler and the else branch are not guarded", "[python][imports]") {
  Py py("try:\n"
        "    import apex.amp as amp\n"
        "except ImportError:\n"
        "    import torch.cuda.amp as fallback\n"
        "else:\n"
        "    import apex.optimizers as opt\n");
  const ImportBinding* amp = binding(py.table(), "amp");
  const ImportBinding* fallback = binding(py.table(), "fallback");
  const ImportBinding* opt = binding(py.table(), "opt");
  REQUIRE(amp);
  REQUIRE(fallback);
  REQUIRE(opt);
  CHECK(amp->guarded);
  CHECK_FALSE(fallback->guarded);
  CHECK_FALSE(opt->guarded);
}

TEST_CASE("a Python 3.14 unparenthesized handler list can guard an import", "[python][imports]") {
  // PEP 758 (Python 3.14) allows `except ValueError, ImportError:`; tree-sitter-python 0.25
  // parses it as an except_clause with two `value` fields, but catches_import_error() only
  // looks at the first one.
  Py py("try:\n    import apex\nexcept ValueError, ImportError:\n    apex = None\n");
  const ImportBinding* apex = binding(py.table(), "apex");
  REQUIRE(apex);
  CHECK(apex->guarded);
}

TEST_CASE("imported_modules names the modules of one import statement", "[python][imports]") {
  auto modules = [](std::string source, std::string_view package = "p") {
    Py py(std::move(source), package);
    return imported_modules(py.first_statement(), package);
  };
  CHECK(modules("import a.b, c\n") == Strings{"a.b", "c"});
  CHECK(modules("import a.b as ab, c as cc\n") == Strings{"a.b", "c"});
  CHECK(modules("import torch\n") == Strings{"torch"});
  CHECK(modules("from .m import x\n") == Strings{"p.m"});
  CHECK(modules("from .m import x, y\n") == Strings{"p.m"});
  CHECK(modules("from . import x\n") == Strings{"p"});
  CHECK(modules("from ..m import x\n", "p.q") == Strings{"p.m"});
  CHECK(modules("from x.y import z\n") == Strings{"x.y"});
  CHECK(modules("from torch import *\n") == Strings{"torch"});
  CHECK(modules("from __future__ import annotations\n").empty());
  CHECK(modules("x = 1\n").empty());  // not an import statement
}

TEST_CASE("from __future__ imports bind nothing", "[python][imports]") {
  Py py("from __future__ import annotations\nfrom __future__ import division, print_function\nimport torch\n");
  CHECK_FALSE(py.at_module("annotations"));
  CHECK_FALSE(py.at_module("division"));
  CHECK_FALSE(py.at_module("print_function"));
  CHECK_FALSE(py.table().imports("__future__"));
  REQUIRE(py.table().bindings().size() == 1);
  CHECK(py.table().bindings()[0].local == "torch");
}

TEST_CASE("imports survive syntax errors elsewhere in the file", "[python][imports]") {
  Py py("import torch as T\n"
        "def broken(:\n"
        "    pass\n"
        "from jax import numpy as jnp\n");
  CHECK(py.at_module("T") == "torch");
  CHECK(py.table().imports("torch"));
}

TEST_CASE("is_guarded tells an optional import from a hard one", "[python][imports]") {
  std::string code =
      "import torch\n"
      "try:\n"
      "    import apex\n"
      "    from flash_attn import flash_attn_func\n"
      "except ImportError:\n"
      "    apex = None\n"
      "try:\n"
      "    import xformers\n"
      "finally:\n"
      "    pass\n";
  Parser parser;
  auto tree = parser.parse(code);
  ImportTable table = ImportTable::build(*tree, "");
  std::map<std::string, bool> guarded;
  for (const ImportBinding& b : table.bindings()) guarded[b.local] = table.is_guarded(b.statement);
  CHECK_FALSE(guarded["torch"]);
  CHECK(guarded["apex"]);
  CHECK(guarded["flash_attn_func"]);
  CHECK_FALSE(guarded["xformers"]);  // try/finally catches nothing
}
