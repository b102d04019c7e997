// SHA-256 (FIPS 180-4, Nettle's), for the HTML report's Content-Security-Policy: the policy
// names its inline style and script by their hashes, so a browser runs those and nothing else
// the page holds (a scanned file's name or line that slipped past escaping would still not run).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tpulint::report {

std::array<uint8_t, 32> sha256(std::string_view data);

// A CSP hash source for `text`, as browsers compare it: 'sha256-' and its digest in base64.
std::string csp_hash_source(std::string_view text);

}  // namespace tpulint::report
