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

// From here on, the heap's growth in this process takes ordinary 4 KB pages again (pages
// already taken stay as they are). For the parent of a scan's workers, once they are forked:
// the workers parse, in the huge pages they inherited, while the parent only collects their
// findings into fresh memory, where 2 MB pages cost more than they give on this machine's
// virtual machine (measured: the parent's CPU at a million lines -j2, 311-376 ms with them
// and 235-349 ms without; the kernel zeroing 2 MB pages was a quarter of the parent's samples).
// A worker started later to replace one that died parses in 4 KB pages.
void stop_requesting_huge_pages();

}  // namespace tpulint::app
