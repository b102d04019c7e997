#include "report/sha256.h"

#include <nettle/base64.h>
#include <nettle/sha2.h>

namespace tpulint::report {

std::array<uint8_t, 32> sha256(std::string_view data) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  std::array<uint8_t, 32> out{};
  sha256_digest(&ctx, out.size(), out.data());
  return out;
}

std::string csp_hash_source(std::string_view text) {
  const std::array<uint8_t, 32> d = sha256(text);
  std::string encoded(BASE64_ENCODE_RAW_LENGTH(d.size()), '\0');
  base64_encode_raw(encoded.data(), d.size(), d.data());
  return "'sha256-" + encoded + "'";
}

}  // namespace tpulint::report
