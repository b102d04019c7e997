// SourceTree: a scanned file is read beneath the root, through no symlink, and only if it is a
// regular file (issue 34: a file swapped for a symlink to /etc/passwd between discovery and
// analysis put its lines in the report; a FIFO blocked a worker until --file-timeout).
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/scan.h"
#include "core/source_tree.h"
#include "temp_dir.h"

using namespace tpulint;
using tpulint::testing::TempDir;

TEST_CASE("source tree: paths are normalized and never leave the root", "[core][source-tree]") {
  CHECK(normalized_relative_path("a/./b//c") == "a/b/c");
  CHECK(normalized_relative_path("a/../b") == "b");
  CHECK(normalized_relative_path("") == "");
  CHECK(normalized_relative_path("..") == std::nullopt);
  CHECK(normalized_relative_path("a/../../b") == std::nullopt);
  CHECK(normalized_relative_path("/etc/passwd") == std::nullopt);
  CHECK(SourceTree("/r/oot").relative_path("/r/oot/a/../b.py") == "b.py");
  CHECK(SourceTree("/r/oot").relative_path("/r/oot/../etc") == std::nullopt);
  CHECK(SourceTree("/r/oot").relative_path("/r/ootx/a") == std::nullopt);
  CHECK(SourceTree::holding("/r/oot/a/b.py", "a/b.py").root() == "/r/oot");
  CHECK(SourceTree::holding("/r/oot/a/b.py", "x/b.py").root() == "/r/oot/a");  // analyzed as if elsewhere
}

TEST_CASE("source tree: regular files are read, and no symlink, FIFO or device", "[core][source-tree]") {
  TempDir dir, outside;
  dir.write("root/pkg/a.py", "x = 1\n");
  outside.write("secret.py", "root:x:0:0:root:/root:/bin/bash\n");
  dir.symlink(outside.str("secret.py"), "root/pkg/link.py");
  dir.symlink(outside.path(), "root/linked_dir", true);
  dir.symlink(dir.str("root/pkg"), "root/inner_link", true);  // inside the root, still not followed
  REQUIRE(mkfifo(dir.str("root/pkg/fifo.py").c_str(), 0600) == 0);
  dir.symlink("/dev/zero", "root/pkg/zero.py");
  const SourceTree tree(dir.path() / "root");

  FileRead a = tree.read("pkg/a.py", 100);
  CHECK(a.status == FileRead::Status::Read);
  CHECK(a.text == "x = 1\n");
  CHECK(a.stamp.size == 6);
  CHECK(a.stamp.inode != 0);

  for (const char* path : {"pkg/link.py", "linked_dir/secret.py", "inner_link/a.py", "pkg/zero.py"}) {
    INFO(path);
    FileRead r = tree.read(path, 100);
    CHECK(r.status == FileRead::Status::Symlink);
    CHECK(r.text.empty());
  }
  CHECK(tree.read("pkg/fifo.py", 100).status == FileRead::Status::NotRegular);  // returns at once: nothing writes it
  CHECK(tree.read("pkg/missing.py", 100).status == FileRead::Status::Missing);
  CHECK(tree.read("../" + outside.path().filename().string() + "/secret.py", 100).status == FileRead::Status::Missing);
  CHECK(tree.read("pkg/a.py", 5).status == FileRead::Status::TooLarge);

  CHECK(tree.kind("pkg") == EntryKind::Directory);
  CHECK(tree.kind("pkg/a.py") == EntryKind::RegularFile);
  CHECK(tree.kind("pkg/link.py") == EntryKind::Symlink);
  CHECK(tree.kind("linked_dir") == EntryKind::Symlink);
  CHECK(tree.kind("linked_dir/secret.py") == EntryKind::Symlink);
  CHECK(tree.kind("pkg/fifo.py") == EntryKind::Other);
  CHECK(tree.kind("nothing") == EntryKind::Missing);
}

TEST_CASE("a file swapped for a symlink after discovery is skipped, its target never read", "[core][source-tree]") {
  TempDir dir, outside;
  outside.write("passwd", "root:x:0:0:root:/root:/bin/bash\n");
  dir.symlink(outside.str("passwd"), "root/model.py");
  DiscoveredFile file{dir.path() / "root" / "model.py", "model.py", Language::Python};
  auto loaded = load_source(file, 1000);
  REQUIRE(std::holds_alternative<std::string>(loaded));
  CHECK(std::get<std::string>(loaded) == "symlink: not followed");
  // A directory on the way swapped for a symlink is refused the same way.
  dir.write("elsewhere/pkg/model.py", "x = 1\n");
  dir.symlink(dir.str("elsewhere/pkg"), "root/pkg", true);
  auto through_dir = load_source({dir.path() / "root" / "pkg" / "model.py", "pkg/model.py", Language::Python}, 1000);
  REQUIRE(std::holds_alternative<std::string>(through_dir));
  CHECK(std::get<std::string>(through_dir) == "symlink: not followed");
}
