// set_up_memory() must leave the heap's growth marked for transparent huge pages: without the
// mark a large scan spends a third of its time in page faults, and nothing else would notice;
// request_huge_pages_in_heap() must take the mark back and give it again.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "app/memory_setup.h"

namespace {

// The VmFlags line of the mapping that holds `address`, from /proc/self/smaps; empty if none.
std::string mapping_flags(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2 && line.find('-') < line.find(' ')) {
      inside = start <= a && a < end;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line;
    }
  }
  return "";
}

}  // namespace

TEST_CASE("set_up_memory: the heap grows into memory marked for huge pages", "[app][memory]") {
  const tpulint::app::MemorySetup setup = tpulint::app::set_up_memory();
  if (tpulint::kAddressSanitizer) {
    CHECK_FALSE(setup.huge_pages_requested);  // the sanitizer's allocator is left as it is
    return;
  }
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage")) {
    CHECK_FALSE(setup.huge_pages_requested);  // a kernel without them refuses the request
    return;
  }
  REQUIRE(setup.huge_pages_requested);
  // A block below the mapping threshold comes from the heap's top, and past its first few
  // KB (the free space the heap had before it grew) lies in the marked range.
  constexpr size_t kBlock = size_t(8) << 20;
  char* volatile block = static_cast<char*>(std::malloc(kBlock));
  REQUIRE(block != nullptr);
  const std::string flags = mapping_flags(block + kBlock - 1);
  INFO("VmFlags of the block's mapping: " << flags);
  CHECK(flags.find(" hg") != std::string::npos);

  // Once a scan's workers are forked, the parent's heap goes back to 4 KB pages, and before the
  // next scan's workers are forked it asks for huge pages again.
  tpulint::app::request_huge_pages_in_heap(false);
  const std::string off = mapping_flags(block + kBlock - 1);
  INFO("VmFlags after request_huge_pages_in_heap(false): " << off);
  CHECK(off.find(" hg") == std::string::npos);
  CHECK(off.find(" nh") != std::string::npos);
  tpulint::app::request_huge_pages_in_heap(true);
  const std::string on = mapping_flags(block + kBlock - 1);
  INFO("VmFlags after request_huge_pages_in_heap(true): " << on);
  CHECK(on.find(" hg") != std::string::npos);
  CHECK(on.find(" nh") == std::string::npos);
  std::free(block);
}
