// How the process's allocator is set up before a scan: settings measured on large scans,
// made once at start-up by main().
#pragma once

#include "core/address_sanitizer.h"

namespace tpulint::app {

struct MemorySetup {
  bool huge_pages_requested = false;  // the heap's next 256 MB are marked for 2 MB pages
};

// Keeps freed memory for reuse rather than handing it back to the kernel, and asks for
// transparent huge pages under the heap. Does nothing under AddressSanitizer, whose allocator
// is its own.
MemorySetup set_up_memory();

// Whether the heap's growth in this process asks for 2 MB pages from here on, in the range
// set_up_memory() marked (pages already taken stay as they are; nothing if it marked none).
// A scan's parent turns them on before it forks its workers, which parse in the huge pages
// they inherit, and off once they are forked: from then on its own growth is the findings it
// collects, fresh memory where 2 MB pages cost more than they give on this virtual machine
// (the parent's CPU at a million lines -j2: 397-488 ms with them, 305-439 ms without, in
// alternating pairs; the kernel zeroing 2 MB pages had been a quarter of its samples). A worker
// started later to replace one that died parses in 4 KB pages.
void request_huge_pages_in_heap(bool on);

}  // namespace tpulint::app
