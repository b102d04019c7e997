#include "python/python_analyzer.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <span>

#include "core/analyzer_notes.h"
#include "python/imports.h"
#include "python/links.h"
#include "python/literal_data.h"
#include "python/star_expressions.h"

namespace tpulint::python {

namespace {

const ProjectIndex kNoProject;

// The kinds whose nodes open a frame of the walk (PythonContext::frames), as the walk tests them.
constexpr Kind kFrameKinds[] = {Kind::FunctionDefinition, Kind::ClassDefinition, Kind::ForStatement, Kind::WhileStatement};

}  // namespace

PythonAnalyzer::PythonAnalyzer(std::span<const PythonCheckEntry> checks, const CodeRoleFacts* roles,
                               const ProjectIndex* project)
    : roles_(roles), project_(project) {
  for (const PythonCheckEntry& e : checks) {
    infos_.push_back(e.info);
    for (Kind k : e.check->kinds()) {
      std::span<const std::string_view> names = e.check->callee_names(), modules = e.check->callee_modules();
      if (k != Kind::Call || (names.empty() && modules.empty())) {
        by_kind_[size_t(k)].push_back(e);
        continue;
      }
      auto position = uint32_t(named_call_checks_.size());
      for (std::string_view name : names) {
        std::vector<uint32_t>& positions = named_call_checks_by_name_[name];
        if (positions.empty() || positions.back() != position) positions.push_back(position);
      }
      for (std::string_view module : modules)
        named_call_checks_by_package_[module.substr(0, module.find('.'))].emplace_back(module, position);
      named_call_checks_.push_back(e);
    }
    if (e.check->checks_references()) {
      auto position = uint32_t(reference_checks_.size());
      std::span<const std::string_view> names = e.check->reference_names();
      if (names.empty()) reference_checks_of_every_name_.push_back(position);
      for (std::string_view name : names) {
        std::vector<uint32_t>& positions = reference_checks_by_name_[name];
        if (positions.empty() || positions.back() != position) positions.push_back(position);
        longest_reference_name_ = std::max(longest_reference_name_, name.size());
      }
      reference_checks_.push_back(e);
    }
  }
  for (Kind k : kFrameKinds) walked_kinds_.add(k);
  for (size_t k = 0; k < by_kind_.size(); ++k)
    if (!by_kind_[k].empty()) walked_kinds_.add(Kind(k));
  if (!named_call_checks_.empty()) walked_kinds_.add(Kind::Call);
  // References are walked for the checks of references, and for the file's links (with roles).
  if (!reference_checks_.empty() || roles_) {
    walked_kinds_.add(Kind::Identifier);
    walked_kinds_.add(Kind::Attribute);
  }
}

void PythonAnalyzer::settle_due() {
  if (due_.size() > 1) {
    std::sort(due_.begin(), due_.end());
    due_.erase(std::unique(due_.begin(), due_.end()), due_.end());
  }
}

void PythonAnalyzer::check_reference(Node reference, const std::string& qualified, PythonContext& ctx) {
  due_.assign(reference_checks_of_every_name_.begin(), reference_checks_of_every_name_.end());
  if (!reference_checks_by_name_.empty()) {
    // The name itself, then each prefix of it that ends before a dot: "torch.sparse.mm",
    // "torch.sparse", "torch"; but none longer than the longest name given, which could not be
    // one of them (the name of a chain of a hundred thousand attributes has as many prefixes).
    std::string_view name = qualified;
    if (name.size() > longest_reference_name_) {
      size_t dot = name.rfind('.', longest_reference_name_);
      name = name.substr(0, dot == std::string_view::npos ? 0 : dot);
    }
    while (!name.empty()) {
      if (const std::vector<uint32_t>* positions = reference_checks_by_name_.find(name))
        due_.insert(due_.end(), positions->begin(), positions->end());
      size_t dot = name.rfind('.');
      if (dot == std::string_view::npos) break;
      name = name.substr(0, dot);
    }
  }
  settle_due();
  for (uint32_t position : due_) {
    const PythonCheckEntry& e = reference_checks_[position];
    ctx.set_check(e.info);
    e.check->check_reference(reference, qualified, ctx);
  }
}

void PythonAnalyzer::add_checks_naming(std::string_view callee_name) {
  if (callee_name.empty()) return;
  if (const std::vector<uint32_t>* positions = named_call_checks_by_name_.find(callee_name))
    due_.insert(due_.end(), positions->begin(), positions->end());
}

void PythonAnalyzer::check_named_call(Node call, PythonContext& ctx) {
  Node callee = call.field(Field::Function);
  due_.clear();
  // Its own last name: `float` in `float(x)`, `item` in `x.item()`.
  std::string_view own;
  if (callee.kind() == Kind::Identifier)
    own = callee.text();
  else if (callee.kind() == Kind::Attribute)
    own = callee.field(Field::Attribute).text();
  add_checks_naming(own);
  if (const std::optional<std::string>& q = ctx.qualified_name(callee)) {
    // The last name it resolves to: `where` for `w(c)` after `from torch import where as w`.
    if (std::string_view resolved = last_name_part(*q); resolved != own) add_checks_naming(resolved);
    if (!named_call_checks_by_package_.empty()) {
      if (const auto* modules = named_call_checks_by_package_.find(std::string_view(*q).substr(0, q->find('.'))))
        for (const auto& [module, position] : *modules)
          if (has_module_prefix(*q, module)) due_.push_back(position);
    }
  }
  settle_due();
  for (uint32_t position : due_) {
    const PythonCheckEntry& e = named_call_checks_[position];
    ctx.set_check(e.info);
    e.check->check(call, ctx);
  }
}

namespace {

// The first syntax error (an ERROR or MISSING node) and how many there are.
struct SyntaxErrors {
  ByteSpan first{UINT32_MAX, UINT32_MAX};
  size_t count = 0;
  void add(ByteSpan at) {
    if (at.begin < first.begin) first = at;
    ++count;
  }
};

// Where the next top-level statement starts inside [begin, end), after the line holding
// `begin`: a line whose first character is at column 0 and is neither blank, a comment, a
// closing bracket nor a clause that continues a compound statement.
std::optional<uint32_t> next_statement_start(std::string_view text, uint32_t begin, uint32_t end) {
  size_t pos = text.find('\n', begin);
  while (pos != std::string_view::npos && pos + 1 < end) {
    size_t line = pos + 1;
    char c = text[line];
    bool continues = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#' || c == ')' || c == ']' ||
                     c == '}' || text.substr(line).starts_with("else") || text.substr(line).starts_with("elif") ||
                     text.substr(line).starts_with("except") || text.substr(line).starts_with("finally");
    if (!continues) return uint32_t(line);
    pos = text.find('\n', line);
  }
  return std::nullopt;
}

// False for most identifiers and attributes that cannot be a whole name reference, told from
// the node table alone before reference_name() is asked: an identifier inside an attribute
// chain (the chain's root or a member name: the chain is the reference), one that no import
// can bind, and an attribute that is the object of a longer chain. Two in three identifiers
// of ML code are one of these.
bool may_be_reference(Node n, const ImportTable& imports) {
  Node parent = n.parent();
  if (parent && parent.kind() == Kind::Attribute) {
    if (n.kind() == Kind::Identifier) return false;
    if (parent.field(Field::Object) == n) return false;
  }
  return n.kind() != Kind::Identifier || imports.may_resolve(n.text());
}

// Re-parses are bounded so that a file of garbage cannot make recovery quadratic: in number, and
// in the bytes they read in all, since each reads the rest of an ERROR node, which can run to the
// end of the file (a small file keeps its whole count of re-parses; a large one, about one more parse).
constexpr size_t kMaxRecoveryParses = 64;
constexpr size_t kRecoveryBytesBeyondFile = size_t(1) << 20;

}  // namespace

namespace {

// The text the parser reads: the file's, with its literal data blanked (python/literal_data.h).
class ParsedText {
 public:
  explicit ParsedText(std::string_view text) : text_(text) {
    std::vector<ByteSpan> data = literal_data(text);
    if (!data.empty()) blanked_ = blank(text, data);
  }
  std::string_view get() const { return blanked_.empty() ? text_ : std::string_view(blanked_); }
  // The text read with `spans` as spaces too.
  void blank_more(std::span<const ByteSpan> spans) { blanked_ = blank(get(), spans); }

 private:
  std::string_view text_;
  std::string blanked_;
};

// A parse with errors is made again with the `*` of the star expressions the grammar cannot read
// as spaces (python/star_expressions.h), and that parse is kept when it has fewer errors.
void reread_star_expressions(Parser& parser, std::string_view text, ParsedText& parsed, std::unique_ptr<Tree>& tree) {
  const std::vector<ByteSpan> stars = unread_star_expressions(*tree);
  if (stars.empty()) return;
  ParsedText starless = parsed;
  starless.blank_more(stars);
  std::unique_ptr<Tree> again = parser.parse(text, starless.get());
  if (syntax_error_count(*again) >= syntax_error_count(*tree)) {
    again->leave_to_arena();
    return;
  }
  tree->leave_to_arena();
  tree = std::move(again);
  parsed = std::move(starless);
}

}  // namespace

void PythonAnalyzer::parse_only(const SourceFile& file) {
  ParsedText parsed(file.text());
  ParseArena::Scope memory(arena_);
  Parser parser;
  parser.parse(file.text(), parsed.get())->leave_to_arena();
}

void PythonAnalyzer::analyze(const SourceFile& file, FileResult& result) {
  std::string_view text = file.text();
  ParsedText parsed_text(text);
  // The parser and every tree live in the arena, and go before the scope ends. A parser costs a
  // few allocations: one per file keeps all of tree-sitter's memory inside the scope.
  ParseArena::Scope memory(arena_);
  Parser parser;
  std::vector<std::unique_ptr<Tree>> trees;
  trees.push_back(parser.parse(text, parsed_text.get()));
  reread_star_expressions(parser, text, parsed_text, trees[0]);
  const std::string_view parsed = parsed_text.get();

  // Syntax-error recovery: tree-sitter can fold everything after a bad statement into one
  // top-level ERROR node. Such a node is re-parsed from the next top-level statement in it
  // (keeping the file's byte offsets), repeatedly, so one error does not hide the rest.
  std::set<std::pair<size_t, uint32_t>> replaced;  // (tree, start byte) of re-parsed ERROR nodes
  size_t reparse_budget = text.size() + kRecoveryBytesBeyondFile;
  for (size_t t = 0; t < trees.size() && trees.size() < kMaxRecoveryParses; ++t) {
    Node root = trees[t]->root();
    if (!root.has_error()) continue;
    for (uint32_t i = 0; i < root.child_count() && trees.size() < kMaxRecoveryParses; ++i) {
      Node child = root.child(i);
      if (child.kind() != Kind::Error) continue;
      auto start = next_statement_start(parsed, child.span().begin, child.span().end);
      if (!start || child.span().end - *start > reparse_budget) continue;
      reparse_budget -= child.span().end - *start;
      replaced.insert({t, child.span().begin});
      trees.push_back(parser.parse_range(text, parsed, *start, child.span().end));
    }
  }

  std::vector<const Tree*> tree_list;
  for (const auto& t : trees) tree_list.push_back(t.get());
  ImportTable imports = ImportTable::build(tree_list, package_of(file.path()));
  FindingSink sink(file, result.findings);
  // A touch line is a line of the file; a notebook's lines are its cells' (the plan lists none of them).
  if (!file.notebook()) sink.keep_touches(&result.touches);
  SyntaxErrors errors;
  const size_t first_finding = result.findings.size();
  std::vector<uint32_t> offsets;  // of the findings from first_finding on
  if (roles_) sink.keep_offsets(&offsets);
  std::vector<std::unique_ptr<PythonContext>> contexts;  // kept for the semantic model
  std::optional<LinkRecorder> links;  // what the file uses of the rest of the project
  if (roles_) {
    links.emplace(file, *roles_, project_ ? *project_ : kNoProject);
    links->add_imports(imports);
    links->add_native_paths(text);
  }

  for (size_t t = 0; t < trees.size(); ++t) {
    const Tree& tree = *trees[t];
    PythonContext& ctx = *contexts.emplace_back(std::make_unique<PythonContext>(file, tree, imports, sink));
    if (project_) ctx.set_project(project_);
    if (links) ctx.set_links(&*links);
    std::vector<Frame>& frames = ctx.mutable_frames();
    bool check_errors = tree.root().has_error();

    // One pre-order walk over the tree's node table (no recursion: nesting depth is the input's
    // to choose). A frame ends where its node's subtree ends.
    for (uint32_t id = 0; id < tree.node_count();) {
      Node node(&tree, id);
      Kind kind = node.kind();
      // A node no check is given and that opens no frame: nothing to do. The frames it may close
      // are closed at the next node acted on, before any check sees them.
      if (!check_errors && !walked_kinds_.contains(kind)) {
        ++id;
        continue;
      }
      while (!frames.empty() && id >= tree.subtree_end(frames.back().node)) frames.pop_back();
      ctx.set_current(node);
      bool descend = true;

      if (check_errors && (kind == Kind::Error || node.is_missing())) {
        errors.add(node.span());
        // A re-parsed top-level ERROR node is walked through its re-parse instead.
        if (node.parent() == tree.root() && replaced.count({t, node.span().begin})) descend = false;
      }
      if (descend) {
        for (const PythonCheckEntry& e : by_kind_[size_t(kind)]) {
          ctx.set_check(e.info);
          e.check->check(node, ctx);
        }
        if (kind == Kind::Call && !named_call_checks_.empty()) check_named_call(node, ctx);
        if (kind == Kind::Call && links) links->add_call(node);
        if ((kind == Kind::Identifier || kind == Kind::Attribute) && (!reference_checks_.empty() || links) &&
            may_be_reference(node, imports)) {
          if (const std::optional<std::string>& name = ctx.reference_name(node)) {
            if (!reference_checks_.empty()) check_reference(node, *name, ctx);
            if (links) links->add_reference(node.span().begin, *name);
          }
        }
      }
      if (kind == Kind::FunctionDefinition || kind == Kind::ClassDefinition || kind == Kind::ForStatement ||
          kind == Kind::WhileStatement) {  // kFrameKinds
        Frame f{kind == Kind::FunctionDefinition ? Frame::Type::Function
                : kind == Kind::ClassDefinition  ? Frame::Type::Class
                                                 : Frame::Type::Loop,
                node, {}, {}};
        if (Node body = node.field(Field::Body)) f.body = body.span();
        if (kind == Kind::FunctionDefinition) f.decorators = decorator_names(node, ctx);
        frames.push_back(std::move(f));
      }
      id = descend ? id + 1 : tree.subtree_end(node);
    }
  }

  // Where each finding's code runs, and each use of another file: from a model of the file
  // built only when there are findings or uses.
  if (roles_ && (result.findings.size() > first_finding || !links->empty())) {
    SemanticModel model(*roles_, file.path());
    for (size_t t = 0; t < trees.size(); ++t) model.add_tree(*trees[t], *contexts[t]);
    model.finish();
    links->finish(model, result.links);
    bool dropped = false;  // a finding of a check not reported in its context
    for (size_t k = first_finding; k < result.findings.size(); ++k) {
      Finding& f = result.findings[k];
      // A check that knows where its finding's code runs has said so (a module built in a model's
      // constructor runs its op in the model's forward).
      if (f.context == Context::Unknown) f.context = model.context_at(offsets[k - first_finding]);
      auto info = std::find_if(infos_.begin(), infos_.end(), [&](const CheckInfo* i) { return i->id == f.check_id; });
      if (info == infos_.end()) continue;
      if (((*info)->hot_path_only && f.context != Context::HotPath && f.context != Context::Loop) ||
          ((*info)->outside_hot_path_only && f.context == Context::HotPath)) {
        f.check_id.clear();
        dropped = true;
      } else if (discounts_finding(f.context, **info)) {
        f.discounted = true;
        f.severity = Severity::Info;
      } else if (f.context != Context::Test) {
        f.optional_option = model.optional_option_at(offsets[k - first_finding]);
      }
    }
    if (dropped)
      result.findings.erase(std::remove_if(result.findings.begin() + ptrdiff_t(first_finding), result.findings.end(),
                                           [](const Finding& f) { return f.check_id.empty(); }),
                            result.findings.end());
  } else if (links) {
    links->write_options(result.links);
  }
  if (roles_) {
    result.links.script = file.notebook();
    for (size_t t = 0; t < trees.size(); ++t) {
      if (!result.links.defines_model) result.links.defines_model = defines_model_class(*trees[t], *contexts[t], *roles_);
      const ImportTable& imports = contexts[t]->imports();
      if (imports.imports("torch")) result.links.frameworks |= FileLinks::kTorch;
      if (imports.imports("jax") || imports.imports("flax")) result.links.frameworks |= FileLinks::kJax;
      if (imports.imports("tensorflow")) result.links.frameworks |= FileLinks::kTf;
      Node main = main_block(*trees[t]);
      if (!main || file.notebook()) continue;
      if (reads_command_line(main, *roles_)) {
        result.links.script = true;
      } else if (result.links.main_first_line == 0) {
        result.links.main_first_line = file.position(main.span().begin).line;
        result.links.main_last_line = file.position(main.span().end > main.span().begin ? main.span().end - 1 : main.span().begin).line;
      }
    }
  }
  sink.keep_offsets(nullptr);
  sink.keep_touches(nullptr);
  settle_touch_lines(result.touches, std::span<const Finding>(result.findings).subspan(first_finding));
  contexts.clear();

  // The scope drops the trees' memory next.
  for (const auto& t : trees) t->leave_to_arena();

  if (errors.count) {
    sink.add(notes::kSyntaxError, errors.first,
             errors.count == 1 ? std::string("syntax error; the rest of the file was analyzed")
                               : fmt::format("{} syntax errors, the first here; the rest of the file was analyzed",
                                             errors.count));
  }
}

}  // namespace tpulint::python
