// Memory for tree-sitter's parses, one file at a time.
//
// tree-sitter allocates every subtree, parse-stack array and lexer buffer of a parse from the
// heap and frees them one by one; in a worker parsing file after file, glibc's malloc and free
// took 12% of the parse (perf, five ML repositories). A ParseArena serves those allocations from
// a few large chunks instead: a freed block goes on a free list of its size class and is reused
// within the same file, and everything is dropped at once when the file is done.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tpulint::python {

class ParseArena {
 public:
  ParseArena() = default;
  ~ParseArena();
  ParseArena(const ParseArena&) = delete;
  ParseArena& operator=(const ParseArena&) = delete;

  // While a Scope lives, tree-sitter's allocations on the calling thread come from `arena`; when
  // it ends, they are all released at once. So every tree-sitter object made in the scope (the
  // parser, its trees) must be destroyed before it ends. Scopes do not nest (std::logic_error).
  // Blocks allocated outside any scope keep going to malloc and free, in or out of a scope.
  class Scope {
   public:
    explicit Scope(ParseArena& arena);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ParseArena& arena_;
  };

  // The allocator itself (tree-sitter reaches it through the Scope; tests call it directly).
  // Blocks are 16-byte aligned. Out of memory aborts, as tree-sitter's own allocator does.
  void* allocate(size_t size);
  void release(void* block);
  void* reallocate(void* block, size_t size);
  bool owns(const void* p) const;
  // True when `p` is a block of the arena whose Scope is current on this thread: the scope's end
  // releases it with the rest, so an object there need not be taken apart block by block first.
  static bool released_with_scope(const void* p);
  // Drops every block; keeps up to kKeptBytes of chunks for the next file.
  void reset();
  size_t reserved_bytes() const;  // the chunks' total size

  static constexpr size_t kKeptBytes = size_t(64) << 20;
  // A larger request aborts, as one that malloc cannot satisfy does in tree-sitter.
  static constexpr size_t kLargestBlock = size_t(1) << 40;

 private:
  struct Chunk {
    std::byte* begin;
    size_t size;
  };
  static constexpr size_t kFirstChunk = size_t(1) << 20;
  // Size classes: kSmallClasses of up to 1 KiB in steps of kSmallStep bytes, then one per power of
  // two from 2 KiB (2 to the kFirstLargeLog) to kLargestBlock.
  static constexpr size_t kSmallStep = 16;
  static constexpr size_t kSmallClasses = 64;
  static constexpr unsigned kFirstLargeLog = 11;
  static constexpr size_t kClasses = kSmallClasses + (std::bit_width(kLargestBlock) - kFirstLargeLog);
  static constexpr size_t class_of(size_t size);
  static size_t capacity_of(size_t size_class);

  std::byte* carve(size_t block_bytes);
  void add_chunk(size_t at_least);

  std::vector<Chunk> chunks_;  // each twice the size of the one before
  size_t current_ = 0;         // the chunk being carved
  std::byte* top_ = nullptr;   // its first free byte
  std::byte* end_ = nullptr;
  std::array<void*, kClasses> free_lists_{};  // released blocks, linked through their payload
};

// Frees what tree-sitter handed over for the caller to free (ts_node_string's text), wherever it
// was allocated.
void free_tree_sitter_block(void* block);

}  // namespace tpulint::python
