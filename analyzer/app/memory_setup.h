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

}  // namespace tpulint::app
