// libFuzzer target: TOML text as a .tpulint.toml and as a pyproject.toml through read_config, the
// parser a scanned repository's configuration goes through. Its only error is a ConfigError;
// a config it accepts has every number in its documented range.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/config.h"

namespace {

bool in_range(double v, double lo, double hi) { return lo <= v && v <= hi; }

void check(const tpulint::Config& c) {
  bool ok = !c.fail_under || in_range(*c.fail_under, 0, 100);
  ok = ok && (!c.auxiliary_weight || in_range(*c.auxiliary_weight, 0, 1));
  ok = ok && (!c.max_file_size || *c.max_file_size > 0);
  for (const auto& [glob, weight] : c.path_weights) ok = ok && in_range(weight, 0, 1000);
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* file : {"/fuzz/.tpulint.toml", "/fuzz/pyproject.toml"}) {
    try {
      check(tpulint::read_config(file, text));
    } catch (const tpulint::ConfigError&) {
      // The documented error; anything else escapes and stops the fuzzer.
    }
  }
  return 0;
}
