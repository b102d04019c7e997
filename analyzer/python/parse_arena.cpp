#include "python/parse_arena.h"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <tree_sitter/api.h>

// No-ops unless compiled with AddressSanitizer: then released and unused bytes are poisoned, so
// that the sanitizer build still catches tree-sitter (or us) touching a block after its release
// or past its size, as it would with malloc.
#include "core/address_sanitizer.h"

namespace tpulint::python {

namespace {

// In front of each block: what its size was asked for, and its class.
struct alignas(16) Header {
  size_t size;
  uint32_t size_class;
};
static_assert(sizeof(Header) == 16);

[[noreturn]] void out_of_memory() {
  // tree-sitter cannot be told that an allocation failed; its own allocator aborts too.
  std::fputs("tpulint: out of memory while parsing\n", stderr);
  std::abort();
}

Header* header_of(void* block) {
  Header* h = reinterpret_cast<Header*>(static_cast<std::byte*>(block) - sizeof(Header));
  TPULINT_UNPOISON_MEMORY(h, sizeof(Header));
  return h;
}

void seal(Header* h) { TPULINT_POISON_MEMORY(h, sizeof(Header)); }

// Marks the first `size` bytes of a block usable and the rest of its capacity not.
void fit(void* block, size_t size, size_t capacity) {
  TPULINT_UNPOISON_MEMORY(block, size);
  TPULINT_POISON_MEMORY(static_cast<std::byte*>(block) + size, capacity - size);
}

thread_local ParseArena* current_arena = nullptr;

void* or_abort(void* p) {
  if (!p) out_of_memory();
  return p;
}

void* arena_malloc(size_t size) {
  ParseArena* a = current_arena;
  return a ? a->allocate(size) : or_abort(std::malloc(size ? size : 1));
}

void* arena_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) out_of_memory();
  ParseArena* a = current_arena;
  if (!a) return or_abort(std::calloc(count ? count : 1, size ? size : 1));
  void* p = a->allocate(count * size);
  std::memset(p, 0, count * size);
  return p;
}

void* arena_realloc(void* block, size_t size) {
  ParseArena* a = current_arena;
  if (a && (!block || a->owns(block))) return a->reallocate(block, size);
  return or_abort(std::realloc(block, size ? size : 1));
}

void arena_free(void* block) {
  if (!block) return;
  ParseArena* a = current_arena;
  if (a && a->owns(block))
    a->release(block);
  else
    std::free(block);
}

}  // namespace

void free_tree_sitter_block(void* block) { arena_free(block); }

constexpr size_t ParseArena::class_of(size_t size) {
  if (size <= kSmallClasses * kSmallStep) return size == 0 ? 0 : (size - 1) / kSmallStep;
  return kSmallClasses + (std::bit_width(size - 1) - kFirstLargeLog);
}

size_t ParseArena::capacity_of(size_t size_class) {
  if (size_class < kSmallClasses) return (size_class + 1) * kSmallStep;
  return size_t(1) << (size_class - kSmallClasses + kFirstLargeLog);
}

ParseArena::~ParseArena() {
  for (const Chunk& c : chunks_) {
    TPULINT_UNPOISON_MEMORY(c.begin, c.size);
    std::free(c.begin);
  }
}

ParseArena::Scope::Scope(ParseArena& arena) : arena_(arena) {
  // tree-sitter's allocator is process-wide; the callbacks fall back to malloc on threads
  // without a scope, so installing them once, on first use, is safe whatever was allocated before.
  static const bool installed = (ts_set_allocator(arena_malloc, arena_calloc, arena_realloc, arena_free), true);
  (void)installed;
  if (current_arena) throw std::logic_error("ParseArena scopes do not nest");
  current_arena = &arena;
}

ParseArena::Scope::~Scope() {
  current_arena = nullptr;
  arena_.reset();
}

void ParseArena::add_chunk(size_t at_least) {
  size_t size = chunks_.empty() ? kFirstChunk : chunks_.back().size * 2;
  while (size < at_least) size *= 2;
  auto* begin = static_cast<std::byte*>(std::malloc(size));
  if (!begin) out_of_memory();
  TPULINT_POISON_MEMORY(begin, size);
  chunks_.push_back({begin, size});
  current_ = chunks_.size() - 1;
}

std::byte* ParseArena::carve(size_t bytes) {
  while (size_t(end_ - top_) < bytes) {
    // The next chunk kept from an earlier file, or a new one; a kept chunk too small for this
    // block is passed over until the reset.
    if (top_ && current_ + 1 < chunks_.size())
      ++current_;
    else if (!top_ && !chunks_.empty())
      current_ = 0;
    else
      add_chunk(bytes);
    top_ = chunks_[current_].begin;
    end_ = top_ + chunks_[current_].size;
  }
  std::byte* p = top_;
  top_ += bytes;
  return p;
}

void* ParseArena::allocate(size_t size) {
  static_assert(class_of(kLargestBlock) < kClasses);
  if (size > kLargestBlock) out_of_memory();
  size_t size_class = class_of(size);
  size_t capacity = capacity_of(size_class);
  void* block = free_lists_[size_class];
  if (block) {
    TPULINT_UNPOISON_MEMORY(block, sizeof(void*));
    std::memcpy(&free_lists_[size_class], block, sizeof(void*));
  } else {
    block = carve(sizeof(Header) + capacity) + sizeof(Header);
  }
  Header* h = header_of(block);
  h->size = size;
  h->size_class = uint32_t(size_class);
  seal(h);
  fit(block, size, capacity);
  return block;
}

void ParseArena::release(void* block) {
  Header* h = header_of(block);
  size_t size_class = h->size_class;
  seal(h);
  TPULINT_UNPOISON_MEMORY(block, sizeof(void*));
  std::memcpy(block, &free_lists_[size_class], sizeof(void*));
  free_lists_[size_class] = block;
  TPULINT_POISON_MEMORY(block, capacity_of(size_class));
}

void* ParseArena::reallocate(void* block, size_t size) {
  if (!block) return allocate(size);
  Header* h = header_of(block);
  size_t old_size = h->size;
  size_t capacity = capacity_of(h->size_class);
  if (size <= capacity) {
    h->size = size;
    seal(h);
    fit(block, size, capacity);
    return block;
  }
  seal(h);
  void* moved = allocate(size);
  std::memcpy(moved, block, old_size);
  release(block);
  return moved;
}

bool ParseArena::owns(const void* p) const {
  auto address = reinterpret_cast<uintptr_t>(p);
  for (const Chunk& c : chunks_) {
    auto begin = reinterpret_cast<uintptr_t>(c.begin);
    if (address >= begin && address - begin < c.size) return true;
  }
  return false;
}

bool ParseArena::released_with_scope(const void* p) { return current_arena && current_arena->owns(p); }

void ParseArena::reset() {
  size_t kept = 0, bytes = 0;
  while (kept < chunks_.size() && bytes + chunks_[kept].size <= kKeptBytes) bytes += chunks_[kept++].size;
  for (size_t i = kept; i < chunks_.size(); ++i) {
    TPULINT_UNPOISON_MEMORY(chunks_[i].begin, chunks_[i].size);
    std::free(chunks_[i].begin);
  }
  chunks_.resize(kept);
  for (const Chunk& c : chunks_) TPULINT_POISON_MEMORY(c.begin, c.size);
  free_lists_.fill(nullptr);
  current_ = 0;
  top_ = end_ = nullptr;
}

size_t ParseArena::reserved_bytes() const {
  size_t total = 0;
  for (const Chunk& c : chunks_) total += c.size;
  return total;
}

}  // namespace tpulint::python
