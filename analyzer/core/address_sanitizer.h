// Whether this build runs under AddressSanitizer, and the poisoning calls that tell it which
// bytes of a custom allocator's memory are not in use.
#pragma once

// GCC says so with a macro, Clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define TPULINT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPULINT_ADDRESS_SANITIZER 1
#endif
#endif

// The sanitizer's interface header ships with its runtime (Debian's libclang-rt-19-dev for
// clang-19), which only the sanitizer build installs: an ordinary build must not need it, so
// there the two calls are no-ops, as the header itself makes them without AddressSanitizer.
#ifdef TPULINT_ADDRESS_SANITIZER
#include <sanitizer/asan_interface.h>
#define TPULINT_POISON_MEMORY(address, size) ASAN_POISON_MEMORY_REGION(address, size)
#define TPULINT_UNPOISON_MEMORY(address, size) ASAN_UNPOISON_MEMORY_REGION(address, size)
#else
#define TPULINT_POISON_MEMORY(address, size) ((void)(address), (void)(size))
#define TPULINT_UNPOISON_MEMORY(address, size) ((void)(address), (void)(size))
#endif

namespace tpulint {

// The sanitizer's allocator is its own, and its leak check needs the process to end normally.
#ifdef TPULINT_ADDRESS_SANITIZER
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace tpulint
