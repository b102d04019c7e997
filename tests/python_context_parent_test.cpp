// PythonContext::parent: the walk's path must give the same parents as tree-sitter, for the
// current node, its ancestors, and (through the fallback) any other node.
#include <catch2/catch.hpp>

#include "python/python_analyzer.h"

using namespace tpulint;
using namespace tpulint::python;

namespace {

class ParentCheck final : public PythonCheck {
 public:
  mutable size_t checked = 0;
  mutable size_t mismatches = 0;

  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Identifier, Kind::Attribute, Kind::Call, Kind::String};
    return k;
  }
  void check(Node n, PythonContext& ctx) const override {
    // The node and every ancestor up to the root, then a node off the path (a sibling).
    for (Node a = n; a; a = a.parent()) {
      ++checked;
      if (!(ctx.parent(a) == a.parent())) ++mismatches;
    }
    if (Node p = n.parent(); p && p.named_child_count() > 1) {
      Node other = p.named_child(0) == n ? p.named_child(1) : p.named_child(0);
      ++checked;
      if (!(ctx.parent(other) == other.parent())) ++mismatches;
    }
  }
};

const CheckInfo kInfo{.id = "TPU298", .name = "parents", .summary = "test", .languages = uint8_t(Language::Python)};

}  // namespace

TEST_CASE("PythonContext::parent agrees with Node::parent on and off the walk's path", "[python][context]") {
  ParentCheck check;
  PythonCheckEntry entry{&kInfo, &check};
  PythonAnalyzer analyzer(std::span(&entry, 1));
  SourceFile file("pkg/mod.py", "/tmp/pkg/mod.py", Language::Python,
                  "import torch\n"
                  "class Net(torch.nn.Module):\n"
                  "    def forward(self, x, y=torch.float64):\n"
                  "        if torch.cuda.is_available():\n"
                  "            x = x.cuda().to('cuda', non_blocking=True)\n"
                  "        return [f(a) for a in x], {'k': torch.zeros(3)}\n"
                  "def broken(:\n"
                  "    pass\n"
                  "z = torch.ones(2)\n");
  FileResult result;
  analyzer.analyze(file, result);
  CHECK(check.checked > 100);
  CHECK(check.mismatches == 0);
}
