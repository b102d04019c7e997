#include "python/links.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace tpulint::python {

namespace {

// Whether a keyword argument's value may turn a boolean option on: `True`, or a name, attribute,
// subscript or condition whose value the call's caller decides (`overlap=overlap`,
// `fused=cfg.fused`); not a literal number, string, container, None or False.
bool may_turn_on(Node value) {
  switch (value.kind()) {
    case Kind::True:
    case Kind::Identifier:
    case Kind::Attribute:
    case Kind::Subscript:
    case Kind::NotOperator:
    case Kind::BooleanOperator:
    case Kind::ComparisonOperator:
    case Kind::ConditionalExpression:
    case Kind::Call:
      return true;
    default:
      return false;
  }
}

// `relative` joined to the directory `dir`, with "." and ".." parts resolved; "" when it leaves the
// scan root or is absolute.
std::string join_inside(std::string_view dir, std::string_view relative) {
  if (relative.starts_with('/')) return "";
  std::vector<std::string_view> parts;
  auto add = [&](std::string_view text) {
    size_t begin = 0;
    while (begin <= text.size()) {
      size_t slash = text.find('/', begin);
      if (slash == std::string_view::npos) slash = text.size();
      std::string_view part = text.substr(begin, slash - begin);
      if (part == "..") {
        if (parts.empty()) return false;
        parts.pop_back();
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      begin = slash + 1;
    }
    return true;
  };
  if (!add(dir) || !add(relative) || parts.empty()) return "";
  std::string out;
  for (std::string_view p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

constexpr std::array<std::string_view, 9> kNativeSuffixes = {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hip"};

}  // namespace

LinkRecorder::LinkRecorder(const SourceFile& file, const CodeRoleFacts& facts, const ProjectIndex& project)
    : file_(file), project_(project) {
  const std::string package = package_of(file.path());
  own_package_ = package.substr(0, package.find('.'));
  build_script_ = is_build_script(facts, file.path());
}

void LinkRecorder::add_imports(const ImportTable& imports) {
  for (const ImportTable::Imported& i : imports.imported()) pending_.push_back({FileLinks::Kind::Module, i.name, i.at});
}

bool LinkRecorder::names_project_code(std::string_view qualified) const {
  const std::string_view top = qualified.substr(0, qualified.find('.'));
  return project_.is_own_module(top) || (top == own_package_ && !own_package_.empty());
}

void LinkRecorder::add_reference(uint32_t offset, std::string_view qualified) {
  if (qualified.find('.') == std::string_view::npos) return;  // a module itself, not a name in one
  if (!names_project_code(qualified)) return;
  pending_.push_back({FileLinks::Kind::Name, std::string(qualified), offset});
}

void LinkRecorder::add_native_paths(std::string_view text) {
  // A build script names the sources it builds: they are used where the extension is imported.
  if (build_script_) return;
  const std::string_view dir = directory_of(file_.path());
  for (size_t quote = text.find_first_of("'\""); quote != std::string_view::npos;
       quote = text.find_first_of("'\"", quote + 1)) {
    // A literal's closing quote after a native source suffix: back to its opening quote on the line.
    const char q = text[quote];
    std::string_view before = text.substr(0, quote);
    if (!std::any_of(kNativeSuffixes.begin(), kNativeSuffixes.end(), [&](std::string_view s) { return before.ends_with(s); }))
      continue;
    const size_t open = before.find_last_of(std::string_view("\n'\"", 3));
    if (open == std::string_view::npos || text[open] != q) continue;
    std::string_view literal = before.substr(open + 1);
    if (literal.empty() || literal.find_first_of(" \t\\{}*") != std::string_view::npos) continue;
    if (std::string joined = join_inside(dir, literal); !joined.empty())
      pending_.push_back({FileLinks::Kind::File, std::move(joined), uint32_t(open)});
  }
}

void LinkRecorder::add_kernel(std::string_view name) { kernels_.emplace_back(name); }

void LinkRecorder::add_call(Node call) {
  // The argument list's keywords read in place: every call of every file comes here, and
  // call_arguments would build vectors for each.
  Node arguments = call.field(Field::Arguments);
  if (!arguments || arguments.kind() != Kind::ArgumentList) return;
  for (uint32_t i = 0; i < arguments.named_child_count(); ++i) {
    Node keyword = arguments.named_child(i);
    if (keyword.kind() != Kind::KeywordArgument) continue;
    Node name = keyword.field(Field::Name), value = keyword.field(Field::Value);
    if (name && value && may_turn_on(value)) options_turned_on_.emplace(name.text());
  }
}

void LinkRecorder::write_options(FileLinks& out) const {
  out.options_turned_on.assign(options_turned_on_.begin(), options_turned_on_.end());
}

void LinkRecorder::add_launch(uint32_t offset, std::string_view target, Finding& finding) {
  finding.awaits_link = true;
  launches_.push_back({std::string(target), file_.position(offset), {}});
}

void LinkRecorder::finish(const SemanticModel& model, FileLinks& out) const {
  const std::vector<SemanticModel::TopLevelFunction> functions = model.top_level_functions();
  for (const auto& f : functions)
    out.functions.push_back({std::string(f.name), file_.position(f.span.begin).line,
                             file_.position(f.span.end > f.span.begin ? f.span.end - 1 : f.span.begin).line,
                             f.used_here, f.role,
                             std::find(kernels_.begin(), kernels_.end(), f.name) != kernels_.end()});
  out.launches = launches_;
  write_options(out);
  for (const Pending& p : pending_) {
    // The last name used: the module's or the function's.
    const std::string_view target = p.target;
    const Context c = p.kind == FileLinks::Kind::File ? model.context_at(p.at)
                                                       : model.context_of_use(target.substr(target.rfind('.') + 1), p.at);
    const Context handed = p.kind == FileLinks::Kind::File ? Context::Unknown : model.handed_role(target.substr(target.rfind('.') + 1));
    // Top-level functions are in source order and apart: the last one starting at or before it.
    int32_t function = -1;
    auto after = std::upper_bound(functions.begin(), functions.end(), p.at,
                                  [](uint32_t at, const SemanticModel::TopLevelFunction& f) { return at < f.span.begin; });
    if (after != functions.begin() && p.at < std::prev(after)->span.end) function = int32_t(after - functions.begin() - 1);
    // A use from test code stays a test's (the project links count it neither way).
    const Context context = c != Context::Guarded && c != Context::Test && handed != Context::Unknown ? handed : c;
    out.uses.push_back({p.kind, p.target, file_.position(p.at).line, context, function});
  }
  // One use per target, place and guard: a name referred to a hundred times in one function is
  // one use of it there.
  auto key = [](const FileLinks::Use& u) { return std::tie(u.kind, u.target, u.function, u.context); };
  std::stable_sort(out.uses.begin(), out.uses.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  out.uses.erase(std::unique(out.uses.begin(), out.uses.end(), [&](const auto& a, const auto& b) { return key(a) == key(b); }),
                 out.uses.end());
}

}  // namespace tpulint::python
