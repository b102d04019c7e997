// ParseArena: the allocator under tree-sitter's parses. Its blocks must behave as malloc's do
// (aligned, disjoint, contents kept across a reallocation), its memory must be reused within a
// file and bounded across files, and a scope must route exactly the calling thread's tree-sitter
// allocations to it, leaving blocks from outside any scope to malloc and free.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/address_sanitizer.h"
#include "python/parse_arena.h"
#include "python/syntax.h"

using namespace tpulint::python;

namespace {

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

const void* root_subtree(const Tree& tree) { return ts_tree_root_node(tree.raw()).id; }

// Python source of a few hundred lines, with some syntax errors to exercise tree-sitter's recovery.
std::string sample_source() {
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += "def f" + std::to_string(i) + "(x, y=" + std::to_string(i) + "):\n";
    text += "    return [v * y for v in x if v] + {'k': (x, y)}.get('k')\n";
    if (i % 50 == 7) text += "    if x ==:\n        pass\n";
  }
  return text;
}

}  // namespace

TEST_CASE("parse arena blocks are aligned, disjoint, and keep their contents", "[python][arena]") {
  ParseArena arena;
  std::vector<std::pair<unsigned char*, size_t>> blocks;
  for (size_t size : {0, 1, 15, 16, 17, 100, 1024, 1025, 2048, 5000, 70000, 3 << 20}) {
    auto* p = static_cast<unsigned char*>(arena.allocate(size));
    REQUIRE(p);
    CHECK(aligned(p));
    CHECK(arena.owns(p));
    CHECK(arena.owns(p + (size ? size - 1 : 0)));
    std::memset(p, int(blocks.size() + 1), size);
    blocks.push_back({p, size});
  }
  // Every block still holds what was written to it: none overlaps another.
  for (size_t b = 0; b < blocks.size(); ++b) {
    auto [p, size] = blocks[b];
    CHECK(std::all_of(p, p + size, [&](unsigned char c) { return c == b + 1; }));
  }

  int on_stack = 0;
  std::vector<int> on_heap(4);
  CHECK_FALSE(arena.owns(&on_stack));
  CHECK_FALSE(arena.owns(on_heap.data()));
}

TEST_CASE("parse arena reuses a released block for its size class", "[python][arena]") {
  ParseArena arena;
  void* a = arena.allocate(40);
  void* keep = arena.allocate(40);
  arena.release(a);
  CHECK(arena.allocate(33) == a);  // 33 to 48 bytes share a class
  void* b = arena.allocate(40);
  CHECK(b != a);
  CHECK(b != keep);
  arena.release(b);
  CHECK(arena.allocate(64) != b);  // another class
  void* big = arena.allocate(3000);
  arena.release(big);
  CHECK(arena.allocate(4096) == big);  // 2 KiB to 4 KiB share a class
}

TEST_CASE("parse arena aborts on a request larger than any block, as tree-sitter's allocator does", "[python][arena]") {
  for (size_t size : {ParseArena::kLargestBlock + 1, SIZE_MAX}) {
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      std::freopen("/dev/null", "w", stderr);
      ParseArena arena;
      arena.allocate(size);
      _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGABRT);
  }
}

TEST_CASE("parse arena reallocation keeps the contents", "[python][arena]") {
  ParseArena arena;
  auto* p = static_cast<char*>(arena.reallocate(nullptr, 10));
  std::memcpy(p, "0123456789", 10);
  CHECK(arena.reallocate(p, 16) == p);  // within its capacity: in place
  CHECK(arena.reallocate(p, 4) == p);
  auto* grown = static_cast<char*>(arena.reallocate(p, 4));
  grown = static_cast<char*>(arena.reallocate(grown, 100000));
  CHECK(grown != p);
  CHECK(std::string(grown, 4) == "0123");
  // The old block went back to its class.
  CHECK(arena.allocate(16) == p);
}

TEST_CASE("parse arena reset keeps a bounded amount of memory for the next file", "[python][arena]") {
  ParseArena arena;
  for (int i = 0; i < 100; ++i) arena.allocate(size_t(1) << 20);
  CHECK(arena.reserved_bytes() >= size_t(100) << 20);
  arena.reset();
  size_t kept = arena.reserved_bytes();
  CHECK(kept > 0);
  CHECK(kept <= ParseArena::kKeptBytes);
  // The next file carves the kept chunks first.
  void* p = arena.allocate(1000);
  CHECK(arena.owns(p));
  CHECK(arena.reserved_bytes() == kept);
}

TEST_CASE("a parse inside a scope takes its memory from the arena and gives the same tree", "[python][arena]") {
  std::string text = sample_source();
  auto outside_parser = std::make_unique<Parser>();
  std::unique_ptr<Tree> outside = outside_parser->parse(text);
  std::string expected = to_sexp(*outside);
  REQUIRE(expected.find("ERROR") != std::string::npos);

  ParseArena arena;
  {
    ParseArena::Scope scope(arena);
    Parser parser;
    std::unique_ptr<Tree> inside = parser.parse(text);
    CHECK(arena.owns(root_subtree(*inside)));
    CHECK_FALSE(arena.owns(root_subtree(*outside)));
    CHECK(to_sexp(*inside) == expected);
    // Made outside any scope, freed inside one: back to malloc (the sanitizer build catches a
    // block freed into the wrong allocator).
    outside.reset();
    outside_parser.reset();
  }
  CHECK(arena.reserved_bytes() > 0);
  // Out of the scope, tree-sitter allocates from malloc again.
  Parser after_parser;
  std::unique_ptr<Tree> after = after_parser.parse(text);
  CHECK_FALSE(arena.owns(root_subtree(*after)));
  CHECK(to_sexp(*after) == expected);
}

TEST_CASE("parse arena memory is reused from one parse to the next within a file", "[python][arena]") {
  std::string text = sample_source();
  ParseArena arena;
  ParseArena::Scope scope(arena);
  Parser parser;
  parser.parse(text);
  size_t after_one = arena.reserved_bytes();
  for (int i = 0; i < 20; ++i) parser.parse(text);
  CHECK(arena.reserved_bytes() == after_one);
}

TEST_CASE("a tree left to the arena is dropped with the scope, not released block by block", "[python][arena]") {
  std::string text = sample_source();
  Parser outside_parser;
  std::unique_ptr<Tree> outside = outside_parser.parse(text);
  const std::string expected = to_sexp(*outside);
  ParseArena arena;
  {
    ParseArena::Scope scope(arena);
    Parser parser;
    std::unique_ptr<Tree> kept = parser.parse(text);
    const void* kept_root = root_subtree(*kept);
    kept->leave_to_arena();
    kept.reset();
    // Released, the root's block would be the first reused for its size class; left, it is not.
    std::unique_ptr<Tree> released = parser.parse(text);
    const void* released_root = root_subtree(*released);
    CHECK(released_root != kept_root);
    released.reset();
    std::unique_ptr<Tree> next = parser.parse(text);
    CHECK(root_subtree(*next) == released_root);
    CHECK(to_sexp(*next) == expected);
    // A tree from outside the scope is not the arena's to drop.
    CHECK_THROWS_AS(outside->leave_to_arena(), std::logic_error);
  }
  // Nor is any tree once the scope has ended (and the sanitizer build finds no leak: the arena
  // dropped the tree left to it).
  CHECK_THROWS_AS(outside->leave_to_arena(), std::logic_error);
  CHECK(to_sexp(*outside) == expected);
}

TEST_CASE("parse arena scopes do not nest, and each thread has its own", "[python][arena]") {
  std::string text = sample_source();
  ParseArena first, second;
  ParseArena::Scope scope(first);
  CHECK_THROWS_AS(ParseArena::Scope(second), std::logic_error);
  Parser parser;
  std::unique_ptr<Tree> tree = parser.parse(text);
  CHECK(first.owns(root_subtree(*tree)));  // the failed scope left the first one in place

  bool second_owns = false, first_owns = true;
  std::thread other([&] {
    ParseArena::Scope other_scope(second);
    Parser other_parser;
    std::unique_ptr<Tree> other_tree = other_parser.parse(text);
    second_owns = second.owns(root_subtree(*other_tree));
    first_owns = first.owns(root_subtree(*other_tree));
  });
  other.join();
  CHECK(second_owns);
  CHECK_FALSE(first_owns);
}

#ifdef TPULINT_ADDRESS_SANITIZER

// The sanitizer build: a released block, the bytes past a block's size and the headers are
// poisoned, as malloc's would be, so that tree-sitter touching them is reported.
TEST_CASE("parse arena poisons what is not in use under AddressSanitizer", "[python][arena]") {
  ParseArena arena;
  auto* p = static_cast<char*>(arena.allocate(10));
  CHECK_FALSE(__asan_region_is_poisoned(p, 10));
  CHECK(__asan_address_is_poisoned(p + 10));
  CHECK(__asan_address_is_poisoned(p - 1));  // the header
  p = static_cast<char*>(arena.reallocate(p, 16));
  CHECK_FALSE(__asan_region_is_poisoned(p, 16));
  arena.release(p);
  CHECK(__asan_address_is_poisoned(p));
  CHECK(__asan_address_is_poisoned(p + 15));
  void* again = arena.allocate(1);
  CHECK(again == p);
  CHECK_FALSE(__asan_address_is_poisoned(p));
  CHECK(__asan_address_is_poisoned(p + 1));
  arena.reset();
  CHECK(__asan_address_is_poisoned(p));
}
#endif
