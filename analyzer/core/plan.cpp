#include "core/plan.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>
#include <unordered_map>

namespace tpulint {

std::string parts_summary(const WorkItem& item, size_t max_names) {
  std::string out;
  for (size_t i = 0; i < item.parts.size() && i < max_names; ++i) out += (i ? ", " : "") + item.parts[i];
  if (item.parts.size() > max_names) out += fmt::format(" and {} more", item.parts.size() - max_names);
  return out;
}

std::string_view extension_key(std::string_view module) {
  size_t dot = module.rfind('.');
  std::string_view last = dot == std::string_view::npos ? module : module.substr(dot + 1);
  return last == "_C" ? module : last;
}

std::vector<WorkItem> plan_work(std::span<const Finding> findings, const PathWeights& weights, CoreCode code,
                                std::vector<uint32_t>* item_of) {
  PathWeigher path_weight_of(weights);
  SameLineDuplicates duplicates;
  const Pricing pricing(findings, weights);
  Tally total;
  // Keys and paths are views into `findings`, which outlive this function: a million-line scan
  // has tens of thousands of findings, and copying a key per finding was most of the plan.
  using Key = std::pair<Category, std::string_view>;
  auto key_of = [](const Finding& f) { return Key{f.category, f.subject.empty() ? f.check_name : f.subject}; };
  // A source file -> the item of the extension module that builds it (the first, by key).
  std::map<std::string_view, Key> owner_of_path;
  std::set<Key> declared;  // the extension modules declared with their sources
  for (const Finding& f : findings) {
    if (f.category == Category::AnalyzerNote) continue;
    for (const std::string& p : f.related_paths) owner_of_path.try_emplace(p, key_of(f));
    if (!f.related_paths.empty()) declared.insert(key_of(f));
  }
  // `pkg.x_cuda` -> the item of a module declared as `x_cuda` alone, if no declaration names it whole.
  auto declaration_of = [&](Key key) {
    if (declared.empty() || declared.count(key) || key.second.find('.') == std::string_view::npos) return key;
    Key bare{key.first, extension_key(key.second)};
    return declared.count(bare) ? bare : key;
  };
  // A work item's findings, and what they weigh in the model's terms.
  struct Group {
    Key key;
    std::vector<const Finding*> list;
    Tally tally;       // what its findings add to the scan's
    HoursRange hours;  // its findings' hours, a repeat on one line counted once
    std::vector<const Finding*> native;  // those CoreCode counted in their native core files
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<std::string_view>()(k.second) * 31 + size_t(k.first); }
  };
  std::vector<Group> groups;
  std::unordered_map<Key, size_t, KeyHash> group_of;  // a key -> its place in `groups`
  Group* last = nullptr;                              // the previous finding's group
  std::map<Key, std::set<std::string_view>> parts;
  // Each finding's place in `groups` (kNoWorkItem for a note), renumbered to its item's at the end.
  std::vector<uint32_t> group_of_finding(item_of ? findings.size() : 0, Finding::kNoWorkItem);
  for (const Finding& f : findings) {
    if (f.category == Category::AnalyzerNote) continue;
    const bool repeated = duplicates.repeated(f);
    const double path_weight = finding_weight(f, path_weight_of(f.path), weights);
    const bool native = !repeated && counts_in_native_file(f, path_weight, code);
    const Tally added = repeated ? Tally{} : tally_of(f, path_weight, native, pricing.low_price(f));
    if (native) code.count(f, +1);
    total += added;
    Key key = declaration_of(key_of(f));
    if (auto owner = owner_of_path.find(f.path); owner != owner_of_path.end() && owner->second != key) {
      parts[owner->second].insert(key.second);
      key = owner->second;
    }
    if (!last || last->key != key) {
      auto [it, inserted] = group_of.try_emplace(key, groups.size());
      if (inserted) groups.push_back({key, {}, {}, {}, {}});
      last = &groups[it->second];
    }
    last->list.push_back(&f);
    if (item_of) group_of_finding[size_t(&f - findings.data())] = uint32_t(last - groups.data());
    if (native) last->native.push_back(&f);
    last->tally += added;
    if (!repeated) {
      const HoursRange priced = pricing.priced(f);
      last->hours.low += priced.low;
      last->hours.high += priced.high;
    }
  }
  // In key order, as they were kept in an ordered map: the final sort meets ties in this order.
  std::vector<uint32_t> by_key(groups.size());  // the groups' places, in key order
  for (uint32_t i = 0; i < by_key.size(); ++i) by_key[i] = i;
  std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return groups[a].key < groups[b].key; });
  const double score = judge(total, shares_of(total, code)).score;

  std::vector<WorkItem> items;
  for (uint32_t g : by_key) {
    const auto& [key, list, tally, hours, native] = groups[g];
    WorkItem item;
    item.category = key.first;
    item.subject = std::string(key.second);
    std::vector<std::string_view> ids, paths;
    ids.reserve(list.size());
    paths.reserve(list.size());
    for (const Finding* f : list) {
      ids.push_back(f->check_id);
      paths.push_back(f->path);
      item.effort = std::max(item.effort, f->effort);
      item.severity = std::max(item.severity, f->severity);
    }
    item.hours = hours;
    // Runs of one value go first, and a list in order is not sorted again: findings come
    // ordered by path (so a group's paths are in order), and mostly by check in a file.
    auto sort_unique = [](std::vector<std::string_view>& v) {
      v.erase(std::unique(v.begin(), v.end()), v.end());
      if (std::is_sorted(v.begin(), v.end())) return;
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    sort_unique(ids);
    sort_unique(paths);
    item.check_ids.assign(ids.begin(), ids.end());
    if (auto p = parts.find(key); p != parts.end()) item.parts.assign(p->second.begin(), p->second.end());
    item.findings = list.size();
    item.files = paths.size();
    // An extension module's item starts where the module is declared (the finding naming its
    // sources), not at its first source or import.
    auto declared = std::find_if(list.begin(), list.end(), [](const Finding* f) { return !f->related_paths.empty(); });
    const Finding* first = declared != list.end() ? *declared : list.front();
    item.first_location = location_text(*first);
    item.first_path = first->path.str();
    item.first_line = first->start.line;
    item.first_message = first->message.str();
    Tally without = total;
    without -= tally;
    for (const Finding* f : native) code.count(*f, -1);
    item.score_gain = judge(without, shares_of(without, code)).score - score;
    for (const Finding* f : native) code.count(*f, +1);
    items.push_back(std::move(item));
  }
  auto rate = [](const WorkItem& w) { return w.score_gain / std::max(w.hours.high, 0.1); };
  std::vector<uint32_t> order(items.size());  // items' places in `items`, in the plan's order
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const WorkItem &a = items[x], &b = items[y];
    if (rate(a) != rate(b)) return rate(a) > rate(b);
    if (a.score_gain != b.score_gain) return a.score_gain > b.score_gain;
    return a.subject < b.subject;
  });
  std::vector<WorkItem> plan;
  plan.reserve(items.size());
  std::vector<uint32_t> item_of_group(groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    plan.push_back(std::move(items[order[i]]));
    item_of_group[by_key[order[i]]] = i;
  }
  if (item_of) {
    item_of->assign(findings.size(), Finding::kNoWorkItem);
    for (size_t k = 0; k < findings.size(); ++k)
      if (group_of_finding[k] != Finding::kNoWorkItem) (*item_of)[k] = item_of_group[group_of_finding[k]];
  }
  return plan;
}

namespace {

void add_touch(WorkItem& item, std::string_view path, const TouchLine& t) {
  if (std::find(item.check_ids.begin(), item.check_ids.end(), t.check_id) == item.check_ids.end()) {
    item.check_ids.push_back(t.check_id);
    std::sort(item.check_ids.begin(), item.check_ids.end());
  }
  if (item.touched.empty() || item.touched.back().path != path) item.touched.push_back({std::string(path), {}});
  item.touched.back().lines.push_back(t.line);
}

}  // namespace

void attach_touch_lines(std::vector<WorkItem>& plan, std::span<const Finding> findings,
                        std::span<const FileTouches> files) {
  std::map<std::pair<Category, std::string>, size_t> item_of;  // (category, subject) -> index
  for (size_t i = 0; i < plan.size(); ++i) item_of.try_emplace({plan[i].category, plan[i].subject}, i);
  // A source file -> the item of the extension module that builds it (the first, as plan_work has it).
  std::map<std::string_view, uint32_t> owner_of_path;
  for (const Finding& f : findings)
    if (f.category != Category::AnalyzerNote && f.work_item != Finding::kNoWorkItem)
      for (const std::string& p : f.related_paths) owner_of_path.try_emplace(p, f.work_item);
  for (const FileTouches& file : files) {
    const auto owner = owner_of_path.find(file.path);
    for (const TouchLine& t : file.touches) {
      if (owner != owner_of_path.end()) {
        add_touch(plan[owner->second], file.path, t);
        continue;
      }
      auto [it, added] = item_of.try_emplace({t.category, t.subject}, plan.size());  // a copy per touch: few items
      if (added) {
        WorkItem& item = plan.emplace_back();
        item.subject = t.subject;
        item.category = t.category;
        item.first_path = std::string(file.path);
        item.first_line = t.line;
        item.first_location = fmt::format("{}:{}", file.path, t.line);
        item.first_message = fmt::format("a line using the {} (no call)", t.subject);
      }
      add_touch(plan[it->second], file.path, t);
    }
  }
  // A file's touches come sorted by check: two checks of one item may touch one line.
  for (WorkItem& item : plan) {
    item.touch_lines = 0;
    for (WorkItem::TouchedFile& file : item.touched) {
      std::sort(file.lines.begin(), file.lines.end());
      file.lines.erase(std::unique(file.lines.begin(), file.lines.end()), file.lines.end());
      item.touch_lines += file.lines.size();
    }
  }
}

void credit_included_headers(std::vector<Finding>& findings, std::span<const FileIncludes> files) {
  auto includes_of = [&](std::string_view path) -> std::span<const std::string> {
    auto it = std::lower_bound(files.begin(), files.end(), path,
                               [](const FileIncludes& f, std::string_view p) { return f.path < p; });
    return it != files.end() && it->path == path ? it->includes : std::span<const std::string>{};
  };
  for (Finding& f : findings) {
    if (f.related_paths.empty()) continue;
    std::set<std::string> reached(f.related_paths.begin(), f.related_paths.end());
    std::vector<std::string_view> todo(f.related_paths.begin(), f.related_paths.end());
    while (!todo.empty()) {
      const std::string_view path = todo.back();
      todo.pop_back();
      for (const std::string& included : includes_of(path))
        if (reached.insert(included).second) todo.push_back(included);
    }
    f.related_paths.assign(reached.begin(), reached.end());
  }
}

}  // namespace tpulint
