#include "app/memory_setup.h"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>
#include <cstdlib>

namespace tpulint::app {

namespace {

constexpr size_t kKeptBytes = size_t(256) << 20;

// The range request_huge_pages() marked; empty when it marked none.
uintptr_t g_marked_start = 0, g_marked_end = 0;

// Asks the kernel for 2 MB pages under the heap, where transparent huge pages are given on
// request only (Debian's and Ubuntu's default). A large scan holds its findings in tens of MB
// of small allocations: with 4 KB pages a cached rerun of a million lines spent over a third
// of its time in 16,800 page faults. The heap is made to grow 256 MB at a time, in address
// space only (pages are still taken as touched), and that growth is marked MADV_HUGEPAGE;
// growth past it is ordinary again. Forked workers inherit the mark.
bool request_huge_pages() {
#ifdef MADV_HUGEPAGE
  mallopt(M_TOP_PAD, int(kKeptBytes));
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t start = (reinterpret_cast<uintptr_t>(sbrk(0)) + page - 1) & ~(page - 1);
  // More than the free space at the top of the heap, so that the heap grows now.
  const size_t request = mallinfo2().keepcost + (size_t(1) << 20);
  if (request >= kKeptBytes / 8) return false;  // it would be mapped on its own, not taken from the heap
  void* volatile grow = std::malloc(request);  // volatile: an allocation never used is optimized away
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0));
  // Marked before the block is freed: freeing it gives the heap's last pages back.
  const bool marked = end > start && madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE) == 0;
  if (marked) {
    g_marked_start = start;
    g_marked_end = end;
  }
  std::free(grow);
  return marked;
#else
  return false;
#endif
}

// Whether the process may map so little (`ulimit -v`, `ulimit -d`) that growing the heap 256 MB
// at a time would fail where ordinary growth succeeds: then the allocator is left as it is.
bool address_space_is_tight() {
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < 16 * kKeptBytes)
      return true;
  }
  return false;
}

}  // namespace

MemorySetup set_up_memory() {
  MemorySetup setup;
  if (kAddressSanitizer || address_space_is_tight()) return setup;
  // A worker frees each file's trees and takes the same memory again for the next file. By
  // default glibc hands the top of the heap back to the kernel between them, and every page is
  // then faulted in again: on this virtual machine, page faults were 18% of a parse-only run.
  // Freed memory is kept up to 256 MB (the peak is what counts, and it is unchanged); blocks
  // below 32 MB come from the heap rather than a mapping of their own.
  mallopt(M_TRIM_THRESHOLD, int(kKeptBytes));
  mallopt(M_MMAP_THRESHOLD, int(kKeptBytes / 8));
  setup.huge_pages_requested = request_huge_pages();
  return setup;
}

void request_huge_pages_in_heap(bool on) {
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  if (g_marked_end > g_marked_start)
    madvise(reinterpret_cast<void*>(g_marked_start), g_marked_end - g_marked_start,
            on ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
}

}  // namespace tpulint::app
