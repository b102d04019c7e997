// How the process's allocator is set up before a scan: settings measured on large scans,
// made once at start-up by main().
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define TPULINT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPULINT_ADDRESS_SANITIZER 1
#endif
#endif

namespace tpulint::app {

// Built with AddressSanitizer (GCC says so with a macro, Clang with __has_feature): its
// allocator is its own, and its leak check needs the process to end normally.
#ifdef TPULINT_ADDRESS_SANITIZER
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

struct MemorySetup {
  bool huge_pages_requested = false;  // the heap's next 256 MB are marked for 2 MB pages
};

// Keeps freed memory for reuse rather than handing it back to the kernel, and asks for
// transparent huge pages under the heap. Does nothing under AddressSanitizer, whose allocator
// is its own.
MemorySetup set_up_memory();

}  // namespace tpulint::app
