#include "core/registry.h"

#include <algorithm>
#include <stdexcept>

namespace tpulint {

Registry::Registry(std::vector<const CheckInfo*> infos) : infos_(std::move(infos)) {
  std::sort(infos_.begin(), infos_.end(),
            [](const CheckInfo* a, const CheckInfo* b) { return a->id < b->id; });
  for (size_t i = 0; i < infos_.size(); ++i) {
    if (!category_from_id(infos_[i]->id))
      throw std::invalid_argument("malformed check ID '" + std::string(infos_[i]->id) + "'");
    if (i > 0 && infos_[i - 1]->id == infos_[i]->id)
      throw std::invalid_argument("duplicate check ID '" + std::string(infos_[i]->id) + "'");
  }
}

const CheckInfo* Registry::find(std::string_view id) const {
  auto it = std::lower_bound(infos_.begin(), infos_.end(), id,
                             [](const CheckInfo* a, std::string_view b) { return a->id < b; });
  return it != infos_.end() && (*it)->id == id ? *it : nullptr;
}

namespace {
bool matches(std::string_view entry, std::string_view id) {
  return entry == "ALL" || id.starts_with(entry);
}

}  // namespace

void Registry::require_known(std::span<const std::string> entries, std::string_view where) const {
  for (const std::string& e : entries) {
    // "" would be a prefix of every ID: an unset shell variable must not select everything.
    if (e.empty()) throw std::invalid_argument(std::string(where) + ": an empty entry selects nothing");
    bool any = std::any_of(infos_.begin(), infos_.end(), [&](const CheckInfo* c) { return matches(e, c->id); });
    if (!any) throw std::invalid_argument(std::string(where) + ": '" + e + "' matches no check (see `tpulint checks`)");
  }
}

std::vector<std::string_view> Registry::select(std::span<const std::string> select,
                                               std::span<const std::string> ignore,
                                               std::optional<Framework> target) const {
  require_known(select, "--select");
  require_known(ignore, "--ignore");
  std::vector<std::string_view> out;
  for (const CheckInfo* c : infos_) {
    bool selected = select.empty() ||
                    std::any_of(select.begin(), select.end(), [&](auto& e) { return matches(e, c->id); });
    bool ignored = std::any_of(ignore.begin(), ignore.end(), [&](auto& e) { return matches(e, c->id); });
    bool other_framework = target && c->framework != Framework::Any && c->framework != *target;
    if (selected && !ignored && !other_framework) out.push_back(c->id);
  }
  return out;
}

}  // namespace tpulint
