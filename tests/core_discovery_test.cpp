// discover(): which files a scan covers and which it skips, on real temporary directory trees.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/discovery.h"
#include "temp_dir.h"

using namespace tpulint;
namespace fs = std::filesystem;

namespace {

using TempTree = tpulint::testing::TempDir;

std::vector<std::string> paths_of(const Discovery& d) {
  std::vector<std::string> out;
  for (const DiscoveredFile& f : d.files) out.push_back(f.path);
  return out;
}

std::vector<std::string> skipped_paths(const Discovery& d) {
  std::vector<std::string> out;
  for (const SkippedFile& s : d.skipped) out.push_back(s.path);
  return out;
}

std::string skip_reason(const Discovery& d, const std::string& path) {
  for (const SkippedFile& s : d.skipped)
    if (s.path == path) return s.reason;
  return "<not skipped>";
}

Discovery run(std::vector<std::string> paths, DiscoveryOptions options = {}) { return discover(paths, options); }

using Paths = std::vector<std::string>;

}  // namespace

TEST_CASE("language_for_path maps every extension", "[core][discovery]") {
  CHECK(language_for_path("a.py") == Language::Python);
  CHECK(language_for_path("a.pyi") == Language::Python);
  CHECK(language_for_path("k.cu") == Language::Cuda);
  CHECK(language_for_path("k.cuh") == Language::Cuda);
  for (std::string ext : {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".inl"}) {
    INFO(ext);
    CHECK(language_for_path("src/file" + ext) == Language::Cxx);
  }
  CHECK(language_for_path("CMakeLists.txt") == Language::Cmake);
  CHECK(language_for_path("csrc/CMakeLists.txt") == Language::Cmake);
  CHECK(language_for_path("cmake/utils.cmake") == Language::Cmake);
  CHECK(language_for_path("cmakelists.txt") == Language::None);
  CHECK(language_for_path("config.cmake.in") == Language::None);
  CHECK(language_for_path("notes.txt") == Language::None);
  CHECK(language_for_path("Makefile") == Language::None);
  CHECK(language_for_path("setup.cfg") == Language::None);
  CHECK(language_for_path("a.pyc") == Language::None);
  CHECK(language_for_path("a.py.bak") == Language::None);
  CHECK(language_for_path("archive.tar.gz") == Language::None);
  CHECK(language_for_path("dir.py/file") == Language::None);
  CHECK(language_for_path("/abs/path/to/model.py") == Language::Python);
  CHECK(language_for_path("kernels.cu.cc") == Language::Cxx);  // the last extension decides
}

TEST_CASE("discover walks a tree and returns files sorted by '/'-separated relative path",
          "[core][discovery]") {
  TempTree t;
  // Created in an order unrelated to the sorted one.
  t.write("z.py");
  t.write("m/sub/k.cu");
  t.write("m/a.py");
  t.write("a.py");
  t.write("B.py");
  t.write("a-b.py");
  t.write("a.b.py");
  t.write("a/b.py");
  t.write("m/sub/inc.cuh");
  t.write("lib/x.hpp");
  t.write("lib/x.cpp");
  t.write("notes.txt");
  t.write("README.md");
  t.write("Makefile");
  t.write("stubs/api.pyi");

  Discovery d = run({t.str()});
  CHECK(d.root == t.path());
  Paths expected{"B.py",       "a-b.py",    "a.b.py",      "a.py",          "a/b.py",       "lib/x.cpp",
                 "lib/x.hpp",  "m/a.py",    "m/sub/inc.cuh", "m/sub/k.cu",  "stubs/api.pyi", "z.py"};
  CHECK(paths_of(d) == expected);
  CHECK(std::is_sorted(d.files.begin(), d.files.end(), [](auto& a, auto& b) { return a.path < b.path; }));
  for (const DiscoveredFile& f : d.files) {
    INFO(f.path);
    CHECK(f.path.find('\\') == std::string::npos);
    CHECK(f.absolute_path == t.path() / f.path);
    CHECK(f.absolute_path.is_absolute());
    CHECK(f.language == language_for_path(f.path));
  }
  // Non-source files met while walking are neither analyzed nor reported.
  CHECK(d.skipped.empty());
}

TEST_CASE("discover never descends into VCS, dependency, cache and build directories", "[core][discovery]") {
  TempTree t;
  t.write("keep.py");
  for (std::string d : {".git", "node_modules", "build", "__pycache__", "x.egg-info", "venv", ".venv", "dist",
                        ".tox", "site-packages", "cmake-build-debug", "sub/build", "sub/node_modules/pkg"})
    t.write(d + "/hidden.py");
  // Names that merely resemble them are walked.
  for (std::string d : {"builds", "mybuild", "build_utils", "venvs", "egg-info-tools", "git"}) t.write(d + "/seen.py");
  Discovery d = run({t.str()});
  CHECK(paths_of(d) == Paths{"build_utils/seen.py", "builds/seen.py", "egg-info-tools/seen.py", "git/seen.py",
                             "keep.py", "mybuild/seen.py", "venvs/seen.py"});
  CHECK(d.skipped.empty());

  for (std::string_view name : {".git", "node_modules", "build", "__pycache__", "x.egg-info", "venv", ".venv", ".hg",
                                ".mypy_cache", "cmake-build-release", "dist", "site-packages"}) {
    INFO(name);
    CHECK(is_always_skipped_dir(name));
  }
  for (std::string_view name : {"src", "builds", "egg-info", "venvs", "node_module", "tests", "pkg"}) {
    INFO(name);
    CHECK_FALSE(is_always_skipped_dir(name));
  }
}

TEST_CASE("discover applies .gitignore files in the root and in subdirectories", "[core][discovery]") {
  TempTree t;
  t.write(".gitignore",
         "# generated code\n"
         "*.cu\n"
         "!keep.cu\n"          // negation re-includes
         "out*/\n"             // directories only
         "/top_only.py\n"      // anchored to the root
         "gen/data/\n");       // a slash inside: anchored too
  t.write("a.cu");
  t.write("keep.cu");
  t.write("sub/b.cu");
  t.write("sub/keep.cu");
  t.write("output/x.py");        // in an ignored directory
  t.write("out_file.py");        // a file, so "out*/" does not apply
  t.write("top_only.py");
  t.write("sub/top_only.py");    // not at the root: not matched by "/top_only.py"
  t.write("gen/data/d.py");
  t.write("sub/gen/data/d.py");  // "gen/data/" is anchored to the root
  t.write("sub/.gitignore",
         "/local.py\n"
         "!sub_keep.cu\n"       // overrides the parent's "*.cu"
         "cache/\n");
  t.write("sub/local.py");
  t.write("sub/deeper/local.py");  // anchored to sub/: not matched
  t.write("sub/sub_keep.cu");
  t.write("sub/cache/c.py");
  t.write("cache/c.py");           // the subdirectory's rule does not apply above it
  t.write("sub/deeper/.gitignore", "*\n!*.py\n!*/\n");
  t.write("sub/deeper/x.cc");
  t.write("sub/deeper/y.py");

  Discovery d = run({t.str()});
  CHECK(paths_of(d) == Paths{"cache/c.py", "keep.cu", "out_file.py", "sub/deeper/local.py", "sub/deeper/y.py",
                             "sub/gen/data/d.py", "sub/keep.cu", "sub/sub_keep.cu", "sub/top_only.py"});
  CHECK(d.skipped.empty());
}

TEST_CASE("discover applies .gitignore files above the root up to the git top-level", "[core][discovery]") {
  TempTree t;
  t.write("outside.py");
  t.write(".gitignore", "*.py\n");          // above the repository: never read
  t.mkdir("repo/.git");
  t.write("repo/.gitignore", "secret.py\n/src/pkg/anchored.py\n*.cuh\n");
  t.write("repo/src/.gitignore", "tmp/\n!kept.cuh\n");
  t.write("repo/src/pkg/.gitignore", "local_only.py\n");
  t.write("repo/src/pkg/model.py");
  t.write("repo/src/pkg/secret.py");
  t.write("repo/src/pkg/anchored.py");
  t.write("repo/src/pkg/nested/anchored.py");
  t.write("repo/src/pkg/tmp/t.py");
  t.write("repo/src/pkg/k.cuh");
  t.write("repo/src/pkg/kept.cuh");
  t.write("repo/src/pkg/local_only.py");

  Discovery d = run({t.str("repo/src/pkg")});
  CHECK(d.root == t.path() / "repo/src/pkg");
  CHECK(paths_of(d) == Paths{"kept.cuh", "model.py", "nested/anchored.py"});

  SECTION("the whole repository gives the same answer for the same files") {
    Discovery r = run({t.str("repo")});
    CHECK(paths_of(r) == Paths{"src/pkg/kept.cuh", "src/pkg/model.py", "src/pkg/nested/anchored.py"});
  }
  SECTION("without respect_gitignore nothing is ignored") {
    DiscoveryOptions o;
    o.respect_gitignore = false;
    Discovery r = run({t.str("repo/src/pkg")}, o);
    CHECK(paths_of(r) == Paths{"anchored.py", "k.cuh", "kept.cuh", "local_only.py", "model.py",
                               "nested/anchored.py", "secret.py", "tmp/t.py"});
  }
}

TEST_CASE("without a .git directory, ignore files above the scan root do not apply", "[core][discovery]") {
  TempTree t;
  t.write(".gitignore", "*.py\n");
  t.write("proj/.gitignore", "ignored.py\n");
  t.write("proj/a.py");
  t.write("proj/ignored.py");
  Discovery d = run({t.str("proj")});
  CHECK(paths_of(d) == Paths{"a.py"});
}

TEST_CASE("discover applies .git/info/exclude", "[core][discovery]") {
  TempTree t;
  t.write(".git/info/exclude", "# local excludes\nscratch/\n*.inl\n/src/private.py\n");
  t.write("src/model.py");
  t.write("src/private.py");
  t.write("src/impl.inl");
  t.write("src/scratch/s.py");
  t.write("scratch/s.py");

  CHECK(paths_of(run({t.str()})) == Paths{"src/model.py"});
  // From a subdirectory, the exclude file of the repository still applies, anchored at the top.
  Discovery d = run({t.str("src")});
  CHECK(paths_of(d) == Paths{"model.py"});

  DiscoveryOptions o;
  o.respect_gitignore = false;
  CHECK(paths_of(run({t.str()}, o)) ==
        Paths{"scratch/s.py", "src/impl.inl", "src/model.py", "src/private.py", "src/scratch/s.py"});
}

TEST_CASE("discover applies --exclude globs relative to the root", "[core][discovery]") {
  TempTree t;
  t.write("pkg/model.py");
  t.write("pkg/gen/a.py");
  t.write("pkg/gen/deep/b.py");
  t.write("third_party/lib/x.cc");
  t.write("pkg/third_party/y.cc");
  t.write("k.cu");
  t.write("pkg/k2.cu");
  t.write("pkg/test_model.py");

  DiscoveryOptions o;
  o.excludes = {"pkg/gen/**", "/third_party", "*.cu", "test_*.py"};
  Discovery d = run({t.str()}, o);
  CHECK(paths_of(d) == Paths{"pkg/model.py", "pkg/third_party/y.cc"});

  SECTION("excludes apply even when .gitignore files are not respected") {
    o.respect_gitignore = false;
    t.write(".gitignore", "model.py\n");
    CHECK(paths_of(run({t.str()}, o)) == Paths{"pkg/model.py", "pkg/third_party/y.cc"});
  }
  SECTION("excludes are relative to the scan root, not to the git top-level") {
    t.mkdir(".git");
    DiscoveryOptions p;
    p.excludes = {"gen"};
    CHECK(paths_of(run({t.str("pkg")}, p)) == Paths{"k2.cu", "model.py", "test_model.py", "third_party/y.cc"});
    p.excludes = {"/model.py"};
    CHECK(paths_of(run({t.str("pkg")}, p)) ==
          Paths{"gen/a.py", "gen/deep/b.py", "k2.cu", "test_model.py", "third_party/y.cc"});
  }
  SECTION("a negated exclude re-includes") {
    DiscoveryOptions p;
    p.excludes = {"*.cu", "!k.cu"};
    CHECK(paths_of(run({t.str()}, p)) == Paths{"k.cu", "pkg/gen/a.py", "pkg/gen/deep/b.py", "pkg/model.py", "pkg/test_model.py", "pkg/third_party/y.cc",
                                               "third_party/lib/x.cc"});
  }
}

TEST_CASE("respect_gitignore = false still skips always-skipped directories", "[core][discovery]") {
  TempTree t;
  t.write(".gitignore", "*.py\n");
  t.write("a.py");
  t.write("node_modules/m.py");
  t.write("__pycache__/c.py");
  DiscoveryOptions o;
  o.respect_gitignore = false;
  CHECK(paths_of(run({t.str()}, o)) == Paths{"a.py"});
  CHECK(paths_of(run({t.str()})).empty());
}

TEST_CASE("symlinks are never followed, each one in scope is reported as skipped", "[core][discovery]") {
  TempTree t;
  t.write("root/real.py");
  t.write("root/pkg/inner.py");
  t.write("outside/ext.py");
  t.write("outside_file.py");
  t.symlink("real.py", "root/link_to_file.py");
  t.symlink(t.path() / "outside", "root/ext_dir", true);
  t.symlink("pkg", "root/pkg_alias", true);
  t.symlink(t.path() / "outside_file.py", "root/ext_file.py");
  t.symlink("does_not_exist.py", "root/broken.py");
  t.symlink("loop_b.py", "root/loop_a.py");
  t.symlink("loop_a.py", "root/loop_b.py");
  t.symlink("real.py", "root/link_to_py.txt");  // not a source name, not a directory: out of scope

  Discovery d = run({t.str("root")});
  // Only the real files are analyzed, each once, at its real path.
  CHECK(paths_of(d) == Paths{"pkg/inner.py", "real.py"});
  CHECK(skipped_paths(d) ==
        Paths{"broken.py", "ext_dir", "ext_file.py", "link_to_file.py", "loop_a.py", "loop_b.py", "pkg_alias"});
  CHECK(skip_reason(d, "ext_dir") == "symlink leaves the scanned root");
  CHECK(skip_reason(d, "ext_file.py") == "symlink leaves the scanned root");
  CHECK_THAT(skip_reason(d, "link_to_file.py"), Catch::Contains("real.py") && Catch::Contains("not followed"));
  CHECK_THAT(skip_reason(d, "pkg_alias"), Catch::Contains("directory") && Catch::Contains("'pkg'"));
  CHECK_THAT(skip_reason(d, "broken.py"), Catch::Contains("broken"));
  CHECK_THAT(skip_reason(d, "loop_a.py"), Catch::Contains("looping"));
  for (const SkippedFile& s : d.skipped) {
    INFO(s.path);
    CHECK_FALSE(s.reason.empty());
  }
}

TEST_CASE("an ignored symlink is not reported", "[core][discovery]") {
  TempTree t;
  t.write("root/.gitignore", "ext_dir\n");
  t.write("outside/ext.py");
  t.symlink(t.path() / "outside", "root/ext_dir", true);
  t.write("root/a.py");
  Discovery d = run({t.str("root")});
  CHECK(paths_of(d) == Paths{"a.py"});
  CHECK(d.skipped.empty());
}

TEST_CASE("a symlink named like an always-skipped directory is not reported", "[core][discovery]") {
  // A virtualenv or node_modules that is a symlink (pnpm, `ln -s /opt/venv .venv`) is as much a
  // dependency directory as a real one; today it is reported as a skipped file.
  TempTree t;
  t.mkdir("opt/venv/lib");
  t.write("root/a.py");
  t.symlink(t.path() / "opt/venv", "root/.venv", true);
  t.symlink(t.path() / "opt/venv", "root/node_modules", true);
  Discovery d = run({t.str("root")});
  CHECK(paths_of(d) == Paths{"a.py"});
  CHECK(skipped_paths(d).empty());
}

TEST_CASE("a file passed explicitly is analyzed even if an ignore rule matches it", "[core][discovery]") {
  TempTree t;
  t.write(".gitignore", "gen_*.py\n");
  t.write("gen_ops.py");
  t.write("model.py");

  Discovery alone = run({t.str("gen_ops.py")});
  CHECK(alone.root == t.path());
  CHECK(paths_of(alone) == Paths{"gen_ops.py"});

  // Beside its directory: the walk drops it, the explicit path brings it back, once.
  Discovery both = run({t.str(), t.str("gen_ops.py")});
  CHECK(paths_of(both) == Paths{"gen_ops.py", "model.py"});

  // An --exclude does not drop it either.
  DiscoveryOptions o;
  o.excludes = {"*.py"};
  CHECK(paths_of(run({t.str("gen_ops.py")}, o)) == Paths{"gen_ops.py"});
}

TEST_CASE("a non-source file passed explicitly is skipped with a reason", "[core][discovery]") {
  TempTree t;
  t.write("notes.txt", "hello\n");
  t.write("model.py");
  Discovery d = run({t.str("notes.txt"), t.str("model.py")});
  CHECK(paths_of(d) == Paths{"model.py"});
  REQUIRE(d.skipped.size() == 1);
  CHECK(d.skipped[0].path == "notes.txt");
  CHECK_THAT(d.skipped[0].reason, Catch::Contains("not a Python, C/C++ or CUDA file"));
}

TEST_CASE("a missing path throws DiscoveryError naming it", "[core][discovery]") {
  TempTree t;
  t.write("a.py");
  std::string missing = t.str("no/such/dir");
  CHECK_THROWS_AS(run({missing}), DiscoveryError);
  CHECK_THROWS_WITH(run({missing}), Catch::Contains(missing));
  CHECK_THROWS_AS(run({t.str("a.py"), t.str("missing.py")}), DiscoveryError);
  // DiscoveryError is a std::runtime_error.
  CHECK_THROWS_AS(run({t.str("missing.py")}), std::runtime_error);
}

TEST_CASE("several paths: the root is their deepest common directory", "[core][discovery]") {
  TempTree t;
  t.write("proj/a/x.py");
  t.write("proj/a/y/z.py");
  t.write("proj/b/k.cu");
  t.write("proj/b/deep/h.h");
  t.write("proj/c/ignored_by_scope.py");
  t.write("proj/top.py");

  SECTION("two files in sibling directories") {
    Discovery d = run({t.str("proj/a/x.py"), t.str("proj/b/k.cu")});
    CHECK(d.root == t.path() / "proj");
    CHECK(paths_of(d) == Paths{"a/x.py", "b/k.cu"});
  }
  SECTION("a file and a nested file") {
    Discovery d = run({t.str("proj/a/y/z.py"), t.str("proj/a/x.py")});
    CHECK(d.root == t.path() / "proj/a");
    CHECK(paths_of(d) == Paths{"x.py", "y/z.py"});
  }
  SECTION("a file and a directory") {
    Discovery d = run({t.str("proj/b"), t.str("proj/a/x.py")});
    CHECK(d.root == t.path() / "proj");
    CHECK(paths_of(d) == Paths{"a/x.py", "b/deep/h.h", "b/k.cu"});
  }
  SECTION("two directories") {
    Discovery d = run({t.str("proj/b"), t.str("proj/a")});
    CHECK(d.root == t.path() / "proj");
    CHECK(paths_of(d) == Paths{"a/x.py", "a/y/z.py", "b/deep/h.h", "b/k.cu"});
  }
  SECTION("a directory and a file inside it, and the same path twice") {
    Discovery d = run({t.str("proj/a"), t.str("proj/a/y/z.py"), t.str("proj/a")});
    CHECK(d.root == t.path() / "proj/a");
    CHECK(paths_of(d) == Paths{"x.py", "y/z.py"});
  }
  SECTION("non-normalized spellings of the same paths") {
    Discovery d = run({t.str("proj/a/../b/"), t.str("proj/./a/x.py")});
    CHECK(d.root == t.path() / "proj");
    CHECK(paths_of(d) == Paths{"a/x.py", "b/deep/h.h", "b/k.cu"});
  }
}

TEST_CASE("several paths: --exclude globs stay relative to the common root", "[core][discovery]") {
  // discover() walks a subdirectory given beside other paths with a recursive discover() whose
  // root is that subdirectory, so anchored --exclude globs (and, without a .git directory, the
  // common root's .gitignore) are matched against paths relative to the wrong directory.
  TempTree t;
  t.write("proj/a/x.py");
  t.write("proj/b/gen/g.py");
  t.write("proj/b/k.py");
  DiscoveryOptions o;
  o.excludes = {"b/gen"};
  // With a single root the exclude works...
  CHECK(paths_of(run({t.str("proj")}, o)) == Paths{"a/x.py", "b/k.py"});
  // ...and it must work the same when the root is the common directory of several paths.
  Discovery d = run({t.str("proj/a/x.py"), t.str("proj/b")}, o);
  REQUIRE(d.root == t.path() / "proj");
  CHECK(paths_of(d) == Paths{"a/x.py", "b/k.py"});
}

TEST_CASE("several paths: the common root's .gitignore applies without a .git directory",
          "[core][discovery]") {
  TempTree t;
  t.write("proj/.gitignore", "generated.py\n");
  t.write("proj/a/x.py");
  t.write("proj/b/generated.py");
  t.write("proj/b/k.py");
  // With a single root, proj/.gitignore applies to proj/b...
  CHECK(paths_of(run({t.str("proj")})) == Paths{"a/x.py", "b/k.py"});
  // ...and with root proj as the common directory of two paths it must apply as well.
  Discovery d = run({t.str("proj/a"), t.str("proj/b")});
  REQUIRE(d.root == t.path() / "proj");
  CHECK(paths_of(d) == Paths{"a/x.py", "b/k.py"});
}

TEST_CASE("paths with spaces and non-ASCII names", "[core][discovery]") {
  TempTree t;
  t.write("my project/na\xC3\xAFve model.py");
  t.write("my project/\xE6\xA8\xA1\xE5\x9E\x8B/\xE6\xA0\xB8.cu");
  t.write("my project/.gitignore", "ign ored.py\n");
  t.write("my project/ign ored.py");
  Discovery d = run({t.str("my project")});
  CHECK(d.root == t.path() / "my project");
  CHECK(paths_of(d) == Paths{"na\xC3\xAFve model.py", "\xE6\xA8\xA1\xE5\x9E\x8B/\xE6\xA0\xB8.cu"});
  for (const DiscoveredFile& f : d.files) {
    INFO(f.path);
    CHECK(fs::is_regular_file(f.absolute_path));
  }
  Discovery one = run({t.str("my project/na\xC3\xAFve model.py")});
  CHECK(paths_of(one) == Paths{"na\xC3\xAFve model.py"});
}

TEST_CASE("the result does not depend on creation order", "[core][discovery]") {
  std::vector<std::string> names{"b/c.py", "a.py", "c/a/b.cu", "b/a.py", "a/z.h", "c/b.py", "0.py", "_.py"};
  Paths first;
  for (int round = 0; round < 3; ++round) {
    TempTree t;
    std::mt19937 rng(round);
    std::shuffle(names.begin(), names.end(), rng);
    for (const std::string& n : names) t.write(n);
    Paths got = paths_of(run({t.str()}));
    CHECK(std::is_sorted(got.begin(), got.end()));
    CHECK(got.size() == names.size());
    if (round == 0)
      first = got;
    else
      CHECK(got == first);
  }
}

// Regression: a symlink named on the command line was skipped and its target never analyzed.
TEST_CASE("a symlink named on the command line is analyzed at its target inside the root", "[core][discovery]") {
  TempTree t;
  t.write("root/pkg/real.py");
  t.write("outside.py");
  t.symlink("pkg/real.py", "root/link.py");
  t.symlink(t.path() / "outside.py", "root/escape.py");
  std::vector<std::string> paths{t.str("root/link.py"), t.str("root/escape.py")};
  Discovery d = discover(paths, {});
  CHECK(paths_of(d) == std::vector<std::string>{"pkg/real.py"});
  CHECK(skipped_paths(d) == std::vector<std::string>{"escape.py"});
}

// A .gitignore was read whole, however large: a hostile one cost memory and, per path below
// it, matching time in proportion to its size.
TEST_CASE("regression: an ignore file over kMaxIgnoreFileBytes was read whole, it is skipped, not applied",
          "[core][discovery]") {
  TempTree t;
  t.mkdir("repo/.git/info");
  t.write("repo/a.py");
  t.write("repo/b.py");
  t.write("repo/sub/c.py");
  auto padded = [](std::string rules, size_t size) { return rules + std::string(size - rules.size(), '#'); };
  t.write("repo/.git/info/exclude", padded("b.py\n", kMaxIgnoreFileBytes));  // at the limit: applied
  t.write("repo/sub/.gitignore", padded("c.py\n", kMaxIgnoreFileBytes + 1));
  t.write("repo/.gitignore", padded("a.py\n", kMaxIgnoreFileBytes + 1));
  Discovery d = run({t.str("repo/sub")});  // the root's .gitignore lies above the scanned root
  CHECK(paths_of(d) == Paths{"c.py"});
  CHECK(skipped_paths(d) == Paths{"../.gitignore", ".gitignore"});
  CHECK_THAT(skip_reason(d, ".gitignore"), Catch::Contains("larger than 1 MiB") && Catch::Contains("not applied"));
  CHECK(paths_of(run({t.str("repo")})) == Paths{"a.py", "sub/c.py"});
}

// A symlinked .gitignore was read through its link, out of the scanned tree.
TEST_CASE("regression: a symlinked ignore file was followed, it is skipped, not applied", "[core][discovery]") {
  TempTree t;
  t.write("elsewhere/ignore", "*.py\n");
  t.write("root/a.py");
  t.symlink(t.path() / "elsewhere" / "ignore", "root/.gitignore");
  Discovery d = run({t.str("root")});
  CHECK(paths_of(d) == Paths{"a.py"});
  CHECK(skip_reason(d, ".gitignore") == "symlinked ignore file: not followed");
}
