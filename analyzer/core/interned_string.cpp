#include "core/interned_string.h"

#include <mutex>
#include <unordered_set>

namespace tpulint {

namespace {

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

struct Table {
  std::mutex mutex;  // checks run on threads with --in-process
  // Node-based: a value's characters never move once stored, whatever is added later.
  std::unordered_set<std::string, Hash, std::equal_to<>> values;
};

}  // namespace

InternedString::InternedString(std::string_view s) {
  if (s.empty()) return;
  // One thread mostly interns the same value again and again (a file's path, finding after
  // finding): that is answered without the table.
  thread_local std::string_view last;
  if (s == last) {
    view_ = last;
    return;
  }
  static Table& table = *new Table;  // never destroyed: views of it may be read until exit
  std::lock_guard lock(table.mutex);
  auto it = table.values.find(s);
  if (it == table.values.end()) it = table.values.emplace(s).first;
  view_ = last = *it;
}

}  // namespace tpulint
