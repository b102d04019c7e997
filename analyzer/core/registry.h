// Registry: every check's CheckInfo, sorted by ID, and selection by ID prefix
// (`--select TPU2,TPU401 --ignore TPU203`).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/check_info.h"

namespace tpulint {

class Registry {
 public:
  // Takes the infos in any order; sorts them by ID. Throws std::invalid_argument on a
  // malformed or duplicate ID, so a bad registry fails on the first run of any test.
  explicit Registry(std::vector<const CheckInfo*> infos);

  std::span<const CheckInfo* const> all() const { return infos_; }
  const CheckInfo* find(std::string_view id) const;  // nullptr if unknown

  // The IDs selected by `select` minus `ignore`. Each entry is "ALL", a full ID, or an ID
  // prefix such as "TPU2" or "TPU40". An empty `select` means ALL. An entry that matches no
  // check throws std::invalid_argument naming it: a typo must never silently select nothing.
  // With a `target` framework, the checks about another framework are left out.
  std::vector<std::string_view> select(std::span<const std::string> select, std::span<const std::string> ignore,
                                       std::optional<Framework> target = std::nullopt) const;

  // Throws std::invalid_argument "WHERE: 'X' matches no check" for an entry of a selection that
  // matches no check (or is empty); `where` names where the list came from (`--select`, a
  // configuration file's key), so that the message points at what to fix.
  void require_known(std::span<const std::string> entries, std::string_view where) const;

 private:
  std::vector<const CheckInfo*> infos_;
};

}  // namespace tpulint
