// The migration plan (plan_work) and configurable path weights.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "core/plan.h"
#include "core/score.h"

using namespace tpulint;

namespace {

Finding make(std::string id, Category cat, EffortClass effort, HoursRange hours, std::string path, std::string subject,
             uint32_t line = 1) {
  Finding f;
  f.check_id = std::move(id);
  f.check_name = "check-" + f.check_id;
  f.category = cat;
  f.effort = effort;
  f.hours = hours;
  f.path = std::move(path);
  f.subject = std::move(subject);
  f.start = f.end = {line, 1};
  return f;
}

const WorkItem* find_item(const std::vector<WorkItem>& items, std::string_view subject) {
  for (const WorkItem& w : items)
    if (w.subject == subject) return &w;
  return nullptr;
}

}  // namespace

TEST_CASE("a kernel's definition and its launches are one work item", "[core][plan]") {
  std::vector<Finding> findings = {
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "csrc/a.cu", "nms_kernel", 10),
      make("TPU102", Category::CustomKernel, EffortClass::Low, {0.5, 2}, "csrc/a.cu", "nms_kernel", 50),
      make("TPU102", Category::CustomKernel, EffortClass::Low, {0.5, 2}, "csrc/b.cu", "nms_kernel", 7),
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "csrc/a.cu", "roi_kernel", 20),
  };
  auto items = plan_work(findings, {});
  REQUIRE(items.size() == 2);
  const WorkItem* nms = find_item(items, "nms_kernel");
  REQUIRE(nms);
  CHECK(nms->findings == 3);
  CHECK(nms->files == 2);
  CHECK(nms->check_ids == std::vector<std::string>{"TPU101", "TPU102"});
  CHECK(nms->effort == EffortClass::High);
  CHECK(nms->hours.low == 17);
  CHECK(nms->hours.high == 44);
  CHECK(nms->first_location == "csrc/a.cu:10");
}

// A report lists each work item's findings: plan_work says which item each finding is in.
TEST_CASE("plan_work tells each finding's work item, in the plan's order, and none for a note", "[core][plan]") {
  Finding module = make("TPU110", Category::CustomKernel, EffortClass::High, {10, 30}, "setup.py", "ops._C", 9);
  module.related_paths = {"csrc/a.cu"};
  std::vector<Finding> findings = {
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "csrc/a.cu", "nms_kernel", 10),
      make("TPU401", Category::CudaApi, EffortClass::Low, {0.1, 0.5}, "m.py", ".cuda()", 3),
      make("TPU902", Category::AnalyzerNote, EffortClass::None, {0, 0}, "big.py", ""),
      module,
      make("TPU401", Category::CudaApi, EffortClass::Low, {0.1, 0.5}, "n.py", ".cuda()", 4),
  };
  std::vector<uint32_t> item_of;
  auto items = plan_work(findings, {}, {}, &item_of);
  REQUIRE(items.size() == 2);
  REQUIRE(item_of.size() == findings.size());
  auto subject = [&](size_t k) { return items.at(item_of[k]).subject; };
  CHECK(subject(0) == "ops._C");  // a kernel in the module's sources joins the module's item
  CHECK(subject(1) == ".cuda()");
  CHECK(item_of[2] == Finding::kNoWorkItem);
  CHECK(subject(3) == "ops._C");
  CHECK(subject(4) == ".cuda()");
  CHECK(plan_work(findings, {}).size() == 2);  // the same plan without asking
}

TEST_CASE("an extension module, its sources' kernels and its imports are one work item, each counted once",
          "[core][plan]") {
  Finding module = make("TPU110", Category::CustomKernel, EffortClass::High, {10, 30}, "setup.py", "ops._C", 9);
  module.related_paths = {"csrc/a.cu", "csrc/gone.cu"};
  std::vector<Finding> findings = {
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "csrc/a.cu", "nms_kernel", 10),
      make("TPU102", Category::CustomKernel, EffortClass::Low, {0.5, 2}, "csrc/a.cu", "nms_kernel", 50),
      make("TPU430", Category::CudaApi, EffortClass::Low, {0.5, 1}, "csrc/a.cu", "cudaMalloc", 60),
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "csrc/other.cu", "roi_kernel", 20),
      module,
      make("TPU117", Category::CustomKernel, EffortClass::Medium, {0.5, 1}, "ops/a.py", "ops._C", 3),
      make("TPU117", Category::CustomKernel, EffortClass::Medium, {0.5, 1}, "ops/b.py", "ops._C", 4),
  };
  auto items = plan_work(findings, PathWeights{});
  const WorkItem* ext = find_item(items, "ops._C");
  REQUIRE(ext);
  CHECK(ext->findings == 6);  // the module, both imports, and everything in csrc/a.cu
  CHECK(ext->files == 4);
  CHECK(ext->parts == std::vector<std::string>{"cudaMalloc", "nms_kernel"});
  CHECK(ext->first_location == "setup.py:9");
  CHECK(ext->hours.low == Approx(10 + 16 + 0.5 + 0.5 + 0.5 + 0.5));
  CHECK(parts_summary(*ext) == "cudaMalloc, nms_kernel");
  CHECK(parts_summary(*ext, 1) == "cudaMalloc and 1 more");
  // A kernel outside the module's sources stays its own item; nothing is counted twice.
  CHECK_FALSE(find_item(items, "nms_kernel"));
  CHECK_FALSE(find_item(items, "cudaMalloc"));
  REQUIRE(find_item(items, "roi_kernel"));
  size_t total = 0;
  for (const WorkItem& w : items) total += w.findings;
  CHECK(total == findings.size());
}

TEST_CASE("a module declared by its last component (a CMake target) takes the imports of its dotted name",
          "[core][plan]") {
  Finding target = make("TPU118", Category::CustomKernel, EffortClass::High, {8, 24}, "CMakeLists.txt", "_ext_cuda", 5);
  target.related_paths = {"csrc/k.cu"};
  Finding torch_c = make("TPU118", Category::CustomKernel, EffortClass::High, {8, 24}, "CMakeLists.txt", "_C", 9);
  torch_c.related_paths = {"csrc/c.cu"};
  Finding exact = make("TPU110", Category::CustomKernel, EffortClass::High, {8, 24}, "setup.py", "other._ext_cuda", 3);
  exact.related_paths = {"csrc/other.cu"};
  std::vector<Finding> findings = {
      target, torch_c, exact,
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "csrc/k.cu", "splat_kernel", 10),
      make("TPU117", Category::CustomKernel, EffortClass::Medium, {2, 8}, "pkg/a.py", "pkg._ext_cuda", 3),
      make("TPU117", Category::CustomKernel, EffortClass::Medium, {2, 8}, "pkg/sub/b.py", "pkg.sub._ext_cuda", 3),
      // setup.py names this one whole: its import stays with it.
      make("TPU117", Category::CustomKernel, EffortClass::Medium, {2, 8}, "other/c.py", "other._ext_cuda", 3),
      // `_C` is every package's: a bare `_C` target does not take `pkg._C`.
      make("TPU117", Category::CustomKernel, EffortClass::Medium, {2, 8}, "pkg/d.py", "pkg._C", 3),
      // Another category with the same last component is another kind of thing.
      make("TPU501", Category::CudaLibrary, EffortClass::Medium, {2, 8}, "pkg/e.py", "lib._ext_cuda", 3),
  };
  auto items = plan_work(findings, PathWeights{});
  const WorkItem* ext = find_item(items, "_ext_cuda");
  REQUIRE(ext);
  CHECK(ext->findings == 4);  // the target, its kernel, two imports
  CHECK(ext->check_ids == std::vector<std::string>{"TPU101", "TPU117", "TPU118"});
  CHECK(ext->parts == std::vector<std::string>{"splat_kernel"});
  CHECK(ext->first_location == "CMakeLists.txt:5");
  REQUIRE(find_item(items, "other._ext_cuda"));
  CHECK(find_item(items, "other._ext_cuda")->findings == 2);
  REQUIRE(find_item(items, "pkg._C"));
  CHECK(find_item(items, "_C")->findings == 1);
  REQUIRE(find_item(items, "lib._ext_cuda"));
  CHECK(extension_key("pkg.sub.x_cuda") == "x_cuda");
  CHECK(extension_key("x_cuda") == "x_cuda");
  CHECK(extension_key("pkg._C") == "pkg._C");
}

TEST_CASE("a work item's gain is the score recovered by fixing all of it", "[core][plan]") {
  std::vector<Finding> findings = {
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "k.cu", "k"),
      make("TPU401", Category::CudaApi, EffortClass::Low, {0.1, 0.25}, "a.py", ".cuda()"),
      make("TPU401", Category::CudaApi, EffortClass::Low, {0.1, 0.25}, "b.py", ".cuda()"),
      make("TPU501", Category::CudaLibrary, EffortClass::Medium, {2, 8}, "a.py", "flash_attn"),
  };
  double all = compute_score(findings).score;
  auto items = plan_work(findings, {});
  REQUIRE(items.size() == 3);
  for (const WorkItem& item : items) {
    std::vector<Finding> rest;
    for (const Finding& f : findings)
      if (f.subject != item.subject) rest.push_back(f);
    INFO(item.subject);
    CHECK(std::abs(item.score_gain - (compute_score(rest).score - all)) <= 0.11);
    CHECK(item.score_gain > 0);
  }
}

TEST_CASE("every work item's gain and count, over interleaved findings of many items", "[core][plan]") {
  // Findings of one item come apart (other items' between them), with several checks and effort
  // classes per item and weighted paths: each item still counts all of its own and recovers the
  // score of the findings without them.
  const std::vector<std::tuple<std::string, Category, EffortClass>> checks = {
      {"TPU101", Category::CustomKernel, EffortClass::High},  {"TPU201", Category::DynamicShape, EffortClass::Medium},
      {"TPU202", Category::DynamicShape, EffortClass::Low},   {"TPU401", Category::CudaApi, EffortClass::Low},
      {"TPU402", Category::CudaApi, EffortClass::Medium},     {"TPU501", Category::CudaLibrary, EffortClass::Medium}};
  const std::vector<std::string> subjects = {"a", "b", "c", "torch.nonzero", ""};
  const std::vector<std::string> paths = {"pkg/m.py", "pkg/n.py", "tests/t.py", "ops/k.cu"};
  PathWeights weights;
  weights.rules = {{"ops/**", 0.5}};
  uint32_t seed = 5;
  auto next = [&](size_t n) {
    seed = seed * 1103515245u + 12345u;
    return size_t(seed >> 16) % n;
  };
  for (int round = 0; round < 100; ++round) {
    INFO("round " << round);
    std::vector<Finding> findings;
    const size_t n = 1 + next(40);
    for (size_t i = 0; i < n; ++i) {
      const auto& [id, category, effort] = checks[next(checks.size())];
      findings.push_back(make(id, category, effort, {1, 2}, paths[next(paths.size())], subjects[next(subjects.size())],
                              uint32_t(i + 1)));
    }
    const double all = compute_score(findings, weights).score;
    auto items = plan_work(findings, weights);
    size_t counted = 0;
    for (const WorkItem& item : items) {
      INFO(item.subject << " " << int(item.category));
      std::vector<Finding> rest;
      size_t own = 0;
      for (const Finding& f : findings) {
        const std::string_view key = f.subject.empty() ? f.check_name.view() : f.subject.view();
        if (key == item.subject && f.category == item.category)
          ++own;
        else
          rest.push_back(f);
      }
      CHECK(item.findings == own);
      CHECK(std::abs(item.score_gain - (compute_score(rest, weights).score - all)) <= 0.11);
      counted += item.findings;
    }
    CHECK(counted == findings.size());
  }
}

TEST_CASE("the plan is ordered by score gained per hour", "[core][plan]") {
  std::vector<Finding> findings = {
      make("TPU101", Category::CustomKernel, EffortClass::High, {40, 120}, "k.cu", "big_kernel"),
      make("TPU401", Category::CudaApi, EffortClass::Low, {0.1, 0.25}, "a.py", ".cuda()"),
      make("TPU501", Category::CudaLibrary, EffortClass::Medium, {2, 8}, "a.py", "flash_attn"),
  };
  auto items = plan_work(findings, {}, 5000);
  REQUIRE(items.size() == 3);
  for (size_t i = 1; i < items.size(); ++i)
    CHECK(items[i - 1].score_gain / items[i - 1].hours.high >= items[i].score_gain / items[i].hours.high);
  // The kernel holds the verdict at significant: rewriting it gains a whole band (25 points) in
  // weeks, more per hour than the rest, which only move the score within the band.
  CHECK(items[0].subject == "big_kernel");
  CHECK(items[0].score_gain > 20);
  CHECK(items[1].subject == ".cuda()");
  CHECK(items[2].subject == "flash_attn");
  CHECK(items[2].score_gain > items[1].score_gain);  // more in total, less per hour
  // Small gains still order the plan and are never shown as nothing.
  CHECK(items[1].score_gain > 0);
  CHECK(items[1].score_gain < 0.05);
}

TEST_CASE("analyzer notes are never work items, and findings without a subject group by check", "[core][plan]") {
  std::vector<Finding> findings = {
      make("TPU902", Category::AnalyzerNote, EffortClass::None, {0, 0}, "x.py", ""),
      make("TPU201", Category::DynamicShape, EffortClass::Medium, {1, 4}, "a.py", ""),
      make("TPU201", Category::DynamicShape, EffortClass::Medium, {1, 4}, "b.py", ""),
  };
  auto items = plan_work(findings, {});
  REQUIRE(items.size() == 1);
  CHECK(items[0].subject == "check-TPU201");
  CHECK(items[0].findings == 2);
}

TEST_CASE("path-weight rules override the auxiliary default, last match wins", "[core][score]") {
  PathWeights w;
  w.rules = {{"third_party", 0.0}, {"tests/integration/**", 1.0}, {"third_party/keep", 0.5}};
  CHECK(path_weight("third_party/lib/a.py", w) == 0.0);           // a directory at any depth
  CHECK(path_weight("pkg/third_party/x/y.cu", w) == 0.0);
  CHECK(path_weight("third_party/keep/k.py", w) == 0.5);          // a later rule wins
  CHECK(path_weight("tests/integration/t.py", w) == 1.0);         // overrides the auxiliary default
  CHECK(path_weight("tests/unit/t.py", w) == 0.25);               // the default still applies
  CHECK(path_weight("pkg/model.py", w) == 1.0);
  CHECK(decides_verdict("pkg/model.py", w));
  CHECK_FALSE(decides_verdict("third_party/keep/k.py", w));
  CHECK(decides_verdict("tests/integration/t.py", w));

  // A kernel in a zero-weight directory neither lowers the score nor decides the verdict.
  std::vector<Finding> vendored = {make("TPU101", Category::CustomKernel, EffortClass::High, {40, 120},
                                        "third_party/lib/k.cu", "k")};
  auto s = compute_score(vendored, w);
  CHECK(s.score == 100);
  CHECK(s.verdict == Verdict::TpuReady);
}

TEST_CASE("a work item's gain counts the native files its findings alone make GPU code", "[core][plan]") {
  // A 600-line CUDA extension of a 1,000-line project: 60%, stay-on-gpu. Its only kernel is one
  // item; fixing it leaves no GPU code, and the gain is what compute_score says of the rest.
  CoreCode code(1000);
  code.add_file("pkg/csrc/ops.cu", true, 500);
  code.add_file("pkg/csrc/bind.cpp", true, 100);
  std::vector<Finding> findings = {
      make("TPU101", Category::CustomKernel, EffortClass::High, {16, 40}, "pkg/csrc/ops.cu", "k"),
      make("TPU401", Category::CudaApi, EffortClass::Low, {0.1, 0.25}, "pkg/model.py", ".cuda()"),
  };
  const ScoreSummary all = compute_score(findings, {}, code);
  REQUIRE(all.verdict == Verdict::StayOnGpu);
  auto items = plan_work(findings, {}, code);
  REQUIRE(items.size() == 2);
  for (const WorkItem& item : items) {
    std::vector<Finding> rest;
    for (const Finding& f : findings)
      if (f.subject != item.subject) rest.push_back(f);
    INFO(item.subject);
    CHECK(std::abs(item.score_gain - (compute_score(rest, {}, code).score - all.score)) <= 0.11);
  }
  CHECK(items.front().subject == "k");  // the kernel's item lifts the verdict out of stay-on-gpu
  CHECK(items.front().score_gain > 25);
}

TEST_CASE("touch lines join the item of their check's subject, an extension module's in its sources, or one of their own",
          "[core][plan]") {
  Finding module = make("TPU110", Category::CustomKernel, EffortClass::High, {10, 30}, "setup.py", "ops._C", 9);
  module.related_paths = {"csrc/a.cu"};
  std::vector<Finding> findings = {
      make("TPU520", Category::CudaLibrary, EffortClass::Medium, {2, 8}, "csrc/a.cu", "cuBLAS", 4),
      make("TPU520", Category::CudaLibrary, EffortClass::Medium, {2, 8}, "lib/b.cu", "cuBLAS", 7),
      module,
  };
  std::vector<uint32_t> item_of;
  auto items = plan_work(findings, PathWeights{}, {}, &item_of);
  for (size_t k = 0; k < findings.size(); ++k) findings[k].work_item = item_of[k];
  const size_t planned = items.size();
  const std::vector<TouchLine> in_a = {{"TPU520", Category::CudaLibrary, "cuBLAS", 2}};
  // Two checks touching one line of one item count it once.
  const std::vector<TouchLine> in_b = {{"TPU435", Category::CudaApi, "CUDA runtime API", 1},
                                       {"TPU520", Category::CudaLibrary, "cuBLAS", 9},
                                       {"TPU520", Category::CudaLibrary, "cuBLAS", 12},
                                       {"TPU521", Category::CudaLibrary, "cuBLAS", 9}};
  const std::vector<FileTouches> files = {{"csrc/a.cu", in_a}, {"lib/b.cu", in_b}};
  attach_touch_lines(items, findings, files);

  const WorkItem* ext = find_item(items, "ops._C");
  REQUIRE(ext);
  REQUIRE(ext->touched.size() == 1);
  CHECK(ext->touched[0].path == "csrc/a.cu");
  CHECK(ext->touched[0].lines == std::vector<uint32_t>{2});
  const WorkItem* cublas = find_item(items, "cuBLAS");
  REQUIRE(cublas);
  CHECK(cublas->findings == 1);
  CHECK(cublas->touch_lines == 2);
  CHECK(cublas->touched[0].lines == std::vector<uint32_t>{9, 12});
  CHECK(cublas->check_ids == std::vector<std::string>{"TPU520", "TPU521"});
  // An API whose names are used but never called: an item of its own, after the others.
  REQUIRE(items.size() == planned + 1);
  const WorkItem& runtime = items.back();
  CHECK(runtime.subject == "CUDA runtime API");
  CHECK(runtime.findings == 0);
  CHECK(runtime.touch_lines == 1);
  CHECK(runtime.first_location == "lib/b.cu:1");
  CHECK(runtime.hours.high == 0);
}
