#include "python/semantic.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "core/identifier_words.h"
#include "core/role_vote.h"
#include "core/source_file.h"
#include "python/imports.h"

namespace tpulint::python {

bool matches_name_pattern(std::string_view pattern, std::string_view name) {
  const bool star_front = pattern.starts_with('*'), star_back = pattern.size() > 1 && pattern.ends_with('*');
  std::string_view core = pattern.substr(star_front ? 1 : 0);
  if (star_back) core.remove_suffix(1);
  if (star_front && star_back) return name.find(core) != std::string_view::npos;
  if (star_front) return name.ends_with(core);
  if (star_back) return name.starts_with(core);
  // "prefix*suffix": "test_*.py"
  if (const size_t star = core.find('*'); star != std::string_view::npos) {
    const std::string_view prefix = core.substr(0, star), suffix = core.substr(star + 1);
    return name.size() >= prefix.size() + suffix.size() && name.starts_with(prefix) && name.ends_with(suffix);
  }
  return name == core;
}

bool is_build_script(const CodeRoleFacts& facts, std::string_view path) {
  return std::any_of(facts.build_scripts.begin(), facts.build_scripts.end(),
                     [&](const std::string& p) { return matches_name_pattern(p, file_name_of(path)); });
}

bool matches_qualified(std::string_view entry, std::string_view qualified) {
  return entry.ends_with('.') ? qualified.starts_with(entry) : qualified == entry;
}

namespace {

bool any_name(const std::vector<std::string>& patterns, std::string_view name) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return matches_name_pattern(p, name); });
}

bool any_qualified(const std::vector<std::string>& entries, std::string_view qualified) {
  return std::any_of(entries.begin(), entries.end(), [&](const std::string& e) { return matches_qualified(e, qualified); });
}

// The first word of a module's file name (core/identifier_words): "val" of "segment/val_dual.py".
std::string first_word_of_file_name(std::string_view path) {
  std::string_view name = file_name_of(path);
  if (name.ends_with(".py")) name.remove_suffix(3);
  std::vector<std::string> words = identifier_words(name);
  return words.empty() ? std::string() : words.front();
}

// Whether a module's directories (not its file name) match one of `parts`.
bool module_directory_matches(std::string_view path, const std::vector<std::string>& parts) {
  const std::string_view directory = directory_of(path);
  return !directory.empty() && module_path_matches(directory, parts);
}

// Whether a try statement with this handler makes an optional dependency: the handler catches a
// failed import and does not raise again, and it names ImportError, or the body imports (a bare
// `except:` or `except Exception:` around other code is error handling, not a guard).
bool is_optional_import(Node try_stmt, Node handler) {
  if (!catches_import_error(handler) || reraises(handler)) return false;
  for (uint32_t k = 0; k < handler.named_child_count(); ++k) {
    Node v = handler.named_child(k);
    if (v.kind() != Kind::Block && (v.text().find("ImportError") != std::string_view::npos ||
                                    v.text().find("ModuleNotFoundError") != std::string_view::npos))
      return true;
  }
  Node body = try_stmt.field(Field::Body);
  for (uint32_t i = 0; body && i < body.named_child_count(); ++i)
    if (Kind k = body.named_child(i).kind(); k == Kind::ImportStatement || k == Kind::ImportFromStatement) return true;
  return false;
}

}  // namespace

bool module_path_matches(std::string_view path, const std::vector<std::string>& parts) {
  size_t begin = 0;
  while (begin < path.size()) {
    size_t slash = path.find('/', begin);
    std::string_view part = path.substr(begin, slash == std::string_view::npos ? std::string_view::npos : slash - begin);
    if (any_name(parts, part)) return true;
    if (slash == std::string_view::npos && part.ends_with(".py") && any_name(parts, part.substr(0, part.size() - 3)))
      return true;
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  return false;
}

namespace {

// `step`, `global_step`, `self.iteration`: a name of the step counter.
bool step_like_name(Node n) {
  const std::string name = ascii_lower(last_name(n));
  return name.find("step") != std::string::npos || name.find("iter") != std::string::npos;
}

// `validate_every`, `log_freq`, `eval_interval`: a name of a period in steps.
bool period_like_name(Node n) {
  const std::string name = ascii_lower(last_name(n));
  return name.find("every") != std::string::npos || name.find("freq") != std::string::npos ||
         name.find("interval") != std::string::npos;
}

// Whether a guard's condition is negated, so that its guarded path is the other branch
// (`if not HAS_APEX:`, `if fused is None:`).
bool negated(Node condition) {
  while (condition && condition.kind() == Kind::ParenthesizedExpression) condition = condition.named_child(0);
  if (!condition) return false;
  if (condition.kind() == Kind::NotOperator) return true;
  if (condition.kind() != Kind::ComparisonOperator) return false;
  // `x is None`, `x == None`, `x != y`; `x is not None` is not negated.
  bool is = false, is_not = false, equals = false, differs = false, none = false;
  for (uint32_t i = 0; i < condition.child_count(); ++i) {
    Node c = condition.child(i);
    if (c.is_named()) {
      none = none || c.kind() == Kind::None;
      continue;
    }
    const std::string_view op = c.type();
    is = is || op == "is";
    is_not = is_not || op == "is not" || (is && op == "not");
    equals = equals || op == "==";
    differs = differs || op == "!=";
  }
  return differs || (none && !is_not && (is || equals));
}

}  // namespace

bool is_periodic_condition(Node e) {
  std::vector<Node> stack{e};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (!n) continue;
    if (n.kind() == Kind::BinaryOperator) {
      Node left = n.field(Field::Left);
      for (uint32_t i = 0; i < n.child_count(); ++i)
        if (!n.child(i).is_named() && n.child(i).type() == "%" && left.kind() != Kind::String) return true;
    }
    if (n.kind() == Kind::Call) {
      auto args = call_arguments(n);
      for (Node a : args.positional)
        if (step_like_name(a) || period_like_name(a)) return true;
    }
    // `if iteration == 0:`, `if step == last_step:`: one step of many.
    if (n.kind() == Kind::ComparisonOperator) {
      bool equals = false, counter = false;
      for (uint32_t i = 0; i < n.child_count(); ++i) {
        Node c = n.child(i);
        if (!c.is_named() && c.type() == "==") equals = true;
        if (c.is_named() && step_like_name(c)) counter = true;
      }
      if (equals && counter) return true;
    }
    for (uint32_t i = 0; i < n.named_child_count(); ++i) stack.push_back(n.named_child(i));
  }
  return false;
}

bool is_lazy_initialization(Node if_statement) {
  Node condition = unparenthesized(if_statement.field(Field::Condition));
  Node body = if_statement.field(Field::Consequence);
  if (!condition || !body) return false;
  // The attribute tested, as its text: `f.w` for `not hasattr(f, 'w')`.
  std::string target;
  Node tested = condition.kind() == Kind::NotOperator ? unparenthesized(condition.named_child(0)) : Node();
  if (tested && tested.kind() == Kind::Call && last_name(tested.field(Field::Function)) == "hasattr") {
    CallArguments args = call_arguments(tested);
    std::optional<std::string> attribute =
        args.positional.size() == 2 ? whole_string_value(args.positional[1]) : std::nullopt;
    if (!attribute || (args.positional[0].kind() != Kind::Identifier && args.positional[0].kind() != Kind::Attribute))
      return false;
    target = std::string(args.positional[0].text()) + "." + *attribute;
  } else if (tested && tested.kind() == Kind::Attribute) {
    target = std::string(tested.text());  // `not self.built`
  } else if (condition.kind() == Kind::ComparisonOperator && condition.named_child_count() == 2 &&
             condition.named_child(0).kind() == Kind::Attribute && is_none(condition.named_child(1)) &&
             condition.child_count() == 3 && condition.child(1).type() == "is") {
    target = std::string(condition.named_child(0).text());  // `self.cache is None`
  } else {
    return false;
  }
  // The body assigns it, outside nested functions and classes.
  const Tree& tree = *body.tree();
  for (uint32_t id = body.id(); id < tree.subtree_end(body);) {
    Node n(&tree, id);
    if (n.kind() == Kind::FunctionDefinition || n.kind() == Kind::ClassDefinition || n.kind() == Kind::Lambda) {
      id = tree.subtree_end(n);
      continue;
    }
    if (n.kind() == Kind::Assignment) {
      Node left = n.field(Field::Left);
      if (left && left.kind() == Kind::Attribute && left.text() == target) return true;
    }
    ++id;
  }
  return false;
}

SemanticModel::SemanticModel(const CodeRoleFacts& facts, std::string_view path)
    : facts_(facts),
      host_module_(module_path_matches(path, facts.host_path_parts)),
      one_time_module_(module_path_matches(path, facts.one_time_path_parts)),
      // Tests and benchmarks: code that checks or times the project, not code that trains or serves.
      test_module_(module_path_matches(path, facts.test_path_parts) ||
                   module_path_matches(path, facts.benchmark_path_parts)),
      eval_module_(any_name(facts.eval_module_words, first_word_of_file_name(path)) ||
                   module_directory_matches(path, facts.eval_path_parts)) {}

namespace {

// Whether one of `function`'s parameters (plain, typed or with a default) matches one of `patterns`.
bool takes_parameter(Node function, const std::vector<std::string>& patterns) {
  Node parameters = function ? function.field(Field::Parameters) : Node();
  for (uint32_t i = 0; parameters && !patterns.empty() && i < parameters.named_child_count(); ++i) {
    Node p = parameters.named_child(i);
    Node name = p.kind() == Kind::Identifier ? p : p.field(Field::Name);
    if (!name && p.kind() == Kind::TypedParameter && p.named_child_count() > 0) name = p.named_child(0);
    if (name && name.kind() == Kind::Identifier && any_name(patterns, name.text())) return true;
  }
  return false;
}

// Whether `name` is a parameter of `function` whose default is `False`: an option the caller
// opts into.
bool opt_in_parameter(Node function, std::string_view name) {
  Node parameters = function ? function.field(Field::Parameters) : Node();
  for (uint32_t i = 0; parameters && i < parameters.named_child_count(); ++i) {
    Node p = parameters.named_child(i);
    if (p.kind() != Kind::DefaultParameter && p.kind() != Kind::TypedDefaultParameter) continue;
    Node n = p.field(Field::Name), value = p.field(Field::Value);
    if (n && value && n.text() == name && value.text() == "False") return true;
  }
  return false;
}

// Whether a block ends by leaving it for code that goes on without what its condition tested: its
// last statement returns, continues or breaks. A `raise` leaves no such path: what follows
// `if fused is None: raise ...` needs the library (the name is required), and what follows
// `if not torch.cuda.is_available(): raise ...` needs a GPU.
bool leaves_for_fallback(Node block) {
  if (!block || block.named_child_count() == 0) return false;
  const Node last = block.named_child(block.named_child_count() - 1);
  return last.kind() == Kind::ReturnStatement || last.kind() == Kind::ContinueStatement ||
         last.kind() == Kind::BreakStatement;
}

// The statements after `statement` in its block, in order.
std::vector<Node> statements_after(Node statement) {
  std::vector<Node> out;
  Node block = statement.parent();
  if (block.kind() != Kind::Block) return out;
  bool after = false;
  for (uint32_t i = 0; i < block.named_child_count(); ++i) {
    Node s = block.named_child(i);
    if (after && s.kind() != Kind::Comment) out.push_back(s);
    after = after || s == statement;
  }
  return out;
}

// One branch of an if statement: its body, and the condition that selects it (none for the else).
struct IfBranch {
  Node body;
  Node condition;
};

// The branches of an if statement, in order: its own, each elif's, the else's.
std::vector<IfBranch> branches_of(Node if_statement) {
  std::vector<IfBranch> out{{if_statement.field(Field::Consequence), if_statement.field(Field::Condition)}};
  for (uint32_t i = 0; i < if_statement.named_child_count(); ++i) {
    Node clause = if_statement.named_child(i);
    if (clause.kind() == Kind::ElifClause) out.push_back({clause.field(Field::Consequence), clause.field(Field::Condition)});
    if (clause.kind() == Kind::ElseClause) out.push_back({clause.field(Field::Body), Node()});
  }
  return out;
}

// What a condition on an option tests, under parentheses and `not`.
Node option_operand(Node condition) {
  while (condition.kind() == Kind::ParenthesizedExpression || condition.kind() == Kind::NotOperator)
    condition = condition.named_child(0);
  return condition;
}

// The `__init__` of the class a method is defined in, or a null node.
Node constructor_of_class_of(Node method) {
  Node cls = method;
  while (cls && cls.kind() != Kind::ClassDefinition) cls = cls.parent();
  Node body = cls ? cls.field(Field::Body) : Node();
  for (uint32_t i = 0; body && i < body.named_child_count(); ++i) {
    Node d = body.named_child(i);
    if (d.kind() == Kind::DecoratedDefinition) d = d.field(Field::Definition);
    if (d && d.kind() == Kind::FunctionDefinition)
      if (Node n = d.field(Field::Name); n && n.text() == "__init__") return d;
  }
  return Node();
}

}  // namespace

// `if use_trt:`, `if self.immiscible:` and their negations: a branch on an option that is off
// unless the caller turns it on (a parameter defaulting to False, of the enclosing function, or
// of its class's `__init__` for an attribute of self). The default path runs without it.
std::string_view opt_in_option(Node condition) {
  condition = option_operand(condition);
  if (!condition) return {};
  Node function = condition.tree()->enclosing_function(condition);
  if (condition.kind() == Kind::Identifier)
    return opt_in_parameter(function, condition.text()) ? condition.text() : std::string_view{};
  if (condition.kind() != Kind::Attribute) return {};
  Node object = condition.field(Field::Object), attribute = condition.field(Field::Attribute);
  if (!object || !attribute || object.kind() != Kind::Identifier || object.text() != "self" || !function) return {};
  const bool opt_in = opt_in_parameter(function, attribute.text()) ||
                      opt_in_parameter(constructor_of_class_of(function), attribute.text());
  return opt_in ? attribute.text() : std::string_view{};
}

Node opt_in_term(Node condition) {
  condition = unparenthesized(condition);
  if (!condition || condition.kind() != Kind::BooleanOperator) return condition;
  for (uint32_t i = 0; i < condition.child_count(); ++i)
    if (!condition.child(i).is_named() && condition.child(i).type() != "and") return Node();
  for (uint32_t i = 0; i < condition.named_child_count(); ++i) {
    Node term = opt_in_term(condition.named_child(i));
    if (term && !negated(term) && !opt_in_option(term).empty()) return term;
  }
  return Node();
}

bool SemanticModel::names_backend(std::string_view option) const {
  // "_use_fused_kernel" -> "_use_fused_kernel_": a word, or words in a row ("custom_op"), between underscores.
  std::string joined = "_";
  for (const std::string& w : identifier_words(option)) joined += w + "_";
  return std::any_of(facts_.backend_words.begin(), facts_.backend_words.end(),
                     [&](const std::string& w) { return joined.find("_" + w + "_") != std::string::npos; });
}

bool SemanticModel::is_tpu_path(Node block) const {
  if (!block || facts_.tpu_words.empty()) return false;
  const Tree& tree = *block.tree();
  for (uint32_t id = block.id(); id < tree.subtree_end(block); ++id) {
    Node n(&tree, id);
    if ((n.kind() == Kind::Identifier || n.kind() == Kind::StringContent) && names_tpu(n.text())) return true;
  }
  return false;
}

bool SemanticModel::names_tpu(std::string_view text) const {
  // Split only a name that holds one of the words somewhere.
  const std::string lower = ascii_lower(text);
  if (std::none_of(facts_.tpu_words.begin(), facts_.tpu_words.end(),
                   [&](const std::string& w) { return lower.find(w) != std::string::npos; }))
    return false;
  for (const std::string& word : identifier_words(text))
    if (any_name(facts_.tpu_words, word)) return true;
  return false;
}

bool SemanticModel::exits_unless_guard_holds(Node condition) {
  // `if not A or not B: return`: what follows runs only when A holds (and B). The operands of the
  // `or`s are a worklist, not recursion: a chain is as long as the input.
  std::vector<Node> operands{condition};
  while (!operands.empty()) {
    Node c = unparenthesized(operands.back());
    operands.pop_back();
    if (!c) continue;
    if (c.kind() == Kind::BooleanOperator) {
      if (Node op = c.child(1); op && op.type() == "or") {
        operands.push_back(c.field(Field::Right));
        operands.push_back(c.field(Field::Left));
      }
      continue;
    }
    if (!negated(c) || !is_guard(c)) continue;
    // A comparison tests a device or a library only against a name or None (`device.type != "cuda"`,
    // `fused is None`); `batch_size % num_gpus != 0` validates arithmetic.
    if (c.kind() != Kind::ComparisonOperator) return true;
    for (uint32_t i = 0; i < c.named_child_count(); ++i)
      if (const Kind k = c.named_child(i).kind(); k == Kind::String || k == Kind::None) return true;
  }
  return false;
}

namespace {

// Whether `n` is the object of an attribute access (`f` of `f.cache`).
bool is_attribute_object(Node n) {
  Node up = n.parent();
  return up && up.kind() == Kind::Attribute && up.field(Field::Object) == n;
}

}  // namespace

namespace {

// A version's numbers ("1.8.0a0" -> {1, 8, 0}); empty when it does not start with a number.
std::vector<int> version_numbers(std::string_view text) {
  std::vector<int> out;
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    int n = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && n < 100000; ++i) n = n * 10 + (text[i] - '0');
    out.push_back(n);
    if (i + 1 >= text.size() || text[i] != '.' || text[i + 1] < '0' || text[i + 1] > '9') break;
    ++i;
  }
  return out;
}

// The version a literal states: a string ('1.8', "0.4.1"), a number (1.8), a tuple of integers
// ((1, 8)), or a call on one of those (`version.parse("1.8")`, `LooseVersion('1.8')`,
// `digit_version('1.6.0')`). Empty when it states none.
std::vector<int> stated_version(Node n) {
  n = unparenthesized(n);
  // `version.parse("1.8")`, `parse_version(str("1.8"))`: a few calls deep, not a generated nest of them.
  for (int depth = 0; n && n.kind() == Kind::Call; ++depth) {
    const CallArguments args = call_arguments(n);
    if (depth == 4 || args.positional.size() != 1 || !args.keywords.empty()) return {};
    n = unparenthesized(args.positional[0]);
  }
  if (!n) return {};
  switch (n.kind()) {
    case Kind::String:
      if (auto text = whole_string_value(n)) return version_numbers(*text);
      return {};
    case Kind::Integer:
    case Kind::Float:
      return version_numbers(n.text());
    case Kind::Tuple: {
      std::vector<int> out;
      for (uint32_t i = 0; i < n.named_child_count(); ++i) {
        Node part = n.named_child(i);
        if (part.kind() != Kind::Integer) return {};
        const std::vector<int> number = version_numbers(part.text());
        if (number.size() != 1) return {};
        out.push_back(number[0]);
      }
      return out;
    }
    default:
      return {};
  }
}

// `a OP b` for versions compared number by number, missing numbers as 0 (2.9 == 2.9.0).
std::optional<bool> compare_versions(const std::vector<int>& a, std::string_view op, const std::vector<int>& b) {
  int order = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) && order == 0; ++i) {
    const int x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    order = x < y ? -1 : x > y ? 1 : 0;
  }
  if (op == "<") return order < 0;
  if (op == "<=") return order <= 0;
  if (op == ">") return order > 0;
  if (op == ">=") return order >= 0;
  if (op == "==") return order == 0;
  if (op == "!=") return order != 0;
  return std::nullopt;
}

std::string_view flipped(std::string_view op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

}  // namespace

std::vector<int> SemanticModel::release_read_by(Node operand, const PythonContext& ctx) const {
  if (!operand) return {};
  const Tree& tree = *operand.tree();
  for (uint32_t id = operand.id(); id < tree.subtree_end(operand); ++id) {
    Node n(&tree, id);
    if (n.kind() == Kind::Identifier) {
      if (auto it = release_names_.find(std::string(n.text())); it != release_names_.end()) return it->second;
      continue;
    }
    if (n.kind() != Kind::Attribute || n.field(Field::Attribute).text() != "__version__") continue;
    const auto& q = ctx.qualified_name(n);
    if (!q) continue;
    const std::string_view module = std::string_view(*q).substr(0, q->size() - std::string_view(".__version__").size());
    for (const std::string& release : facts_.framework_releases) {
      const size_t space = release.find(' ');
      if (space != std::string::npos && std::string_view(release).substr(0, space) == module)
        return version_numbers(std::string_view(release).substr(space + 1));
    }
  }
  return {};
}

std::optional<bool> SemanticModel::holds_on_current_releases(Node condition, const PythonContext& ctx,
                                                             int depth) const {
  // A condition of more nested `not`s, `and`s and `or`s than a person writes decides nothing: the
  // bound keeps a generated chain as long as the input from costing its square, or the stack.
  Node c = unparenthesized(condition);
  if (!c || depth > 16) return std::nullopt;
  if (c.kind() == Kind::NotOperator) {
    if (auto inner = holds_on_current_releases(c.named_child(0), ctx, depth + 1)) return !*inner;
    return std::nullopt;
  }
  if (c.kind() == Kind::BooleanOperator) {
    const Node op = c.child(1);
    const bool conjunction = op && op.type() == "and";
    const std::optional<bool> left = holds_on_current_releases(c.field(Field::Left), ctx, depth + 1);
    const std::optional<bool> right = holds_on_current_releases(c.field(Field::Right), ctx, depth + 1);
    // `and`: false as soon as a term is; `or`: true as soon as a term is.
    if ((left && *left != conjunction) || (right && *right != conjunction)) return !conjunction;
    if (left && right) return conjunction;
    return std::nullopt;
  }
  // A test against a release newer than the one a port runs on decides nothing: that release may
  // be out by the time the code is read.
  auto past = [](const std::vector<int>& stated, const std::vector<int>& release) {
    return compare_versions(stated, "<=", release).value_or(false);
  };
  if (c.kind() == Kind::ComparisonOperator && c.named_child_count() == 2 && c.child_count() == 3) {
    const std::string_view op = c.child(1).type();
    if (std::vector<int> release = release_read_by(c.named_child(0), ctx); !release.empty())
      if (std::vector<int> stated = stated_version(c.named_child(1)); !stated.empty() && past(stated, release))
        return compare_versions(release, op, stated);
    if (std::vector<int> release = release_read_by(c.named_child(1), ctx); !release.empty())
      if (std::vector<int> stated = stated_version(c.named_child(0)); !stated.empty() && past(stated, release))
        return compare_versions(release, flipped(op), stated);
    return std::nullopt;
  }
  // `torch.__version__.startswith('0')`
  if (c.kind() == Kind::Call) {
    Node callee = c.field(Field::Function);
    if (!callee || callee.kind() != Kind::Attribute || callee.field(Field::Attribute).text() != "startswith") return std::nullopt;
    const CallArguments args = call_arguments(c);
    if (args.positional.size() != 1 || !args.keywords.empty()) return std::nullopt;
    const std::optional<std::string> prefix = whole_string_value(args.positional[0]);
    const std::vector<int> release = release_read_by(callee.field(Field::Object), ctx);
    if (!prefix || release.empty() || !past(version_numbers(*prefix), release)) return std::nullopt;
    std::string text;
    for (int n : release) text += (text.empty() ? "" : ".") + std::to_string(n);
    // "2.9" starts with "2." and "2.9", not with "0", "1." or "2.1"; a prefix ending in a digit ends there.
    if (!text.starts_with(*prefix)) return false;
    const size_t next = prefix->size();
    const bool whole_number = next >= text.size() || text[next] == '.' || prefix->empty() || prefix->back() == '.';
    return whole_number ? std::optional<bool>(true) : std::nullopt;
  }
  return std::nullopt;
}

std::vector<bool> SemanticModel::dead_paths(const std::vector<Node>& conditions, const PythonContext& ctx) const {
  std::vector<bool> dead(conditions.size(), false);
  bool any = false, taken_before = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (taken_before) {
      dead[i] = any = true;
      continue;
    }
    if (!conditions[i]) continue;  // an else, reached
    const std::optional<bool> holds = holds_on_current_releases(conditions[i], ctx);
    if (holds && !*holds) dead[i] = any = true;
    taken_before = holds && *holds;
  }
  return any ? dead : std::vector<bool>{};
}

bool SemanticModel::is_guard(Node condition) {
  if (!condition) return false;
  // An opt-in option is a guard when it names a GPU or backend concept (`if use_te:`, `if self.fuse:`);
  // `if self.return_masks:` is a model option, run on a TPU as anywhere.
  if (std::string_view option = opt_in_option(condition); !option.empty() && names_backend(option)) return true;
  const Tree& tree = *condition.tree();
  std::vector<std::string> optional;  // the optional imports' names it reads
  for (uint32_t id = condition.id(); id < tree.subtree_end(condition); ++id) {
    Node n(&tree, id);
    if (n.kind() != Kind::Identifier && n.kind() != Kind::StringContent) continue;
    // A function of the file holding state in an attribute (`_flash_attn_bwd.compile_cache`) tests
    // its own cache, whatever its name says.
    if (n.kind() == Kind::Identifier && is_attribute_object(n) && defines_function(n.text())) continue;
    const std::string word = ascii_lower(n.text());
    if (any_name(facts_.guard_names, word)) return true;
    if (n.kind() == Kind::StringContent && any_name(facts_.guard_strings, word)) return true;
    // A name an optional import binds (`if flash_attn_func is not None`).
    if (n.kind() == Kind::Identifier && optional_names_.contains(std::string(n.text()))) optional.emplace_back(n.text());
    if (n.kind() == Kind::Identifier && guard_flags_.contains(std::string(n.text()))) return true;
  }
  if (optional.empty()) return false;
  if (Node decided = condition.parent()) optional_name_guards_[decided.span().begin] = std::move(optional);
  return true;
}

void SemanticModel::add_classes_beside_tpu_ones(const Tree& tree) {
  if (facts_.tpu_words.empty()) return;
  // A class's name without its device words, joined: `TpuReplicator` and `GpuReplicator` -> "replicator_".
  auto stem = [&](const std::vector<std::string>& words, const std::vector<std::string>& device_words) {
    std::string out;
    for (const std::string& w : words)
      if (!any_name(device_words, w)) out += w + "_";
    return out;
  };
  struct Stem {
    std::vector<Node> others;                   // classes of no TPU word with this stem
    std::unordered_set<std::string_view> bases; // what the TPU classes of this stem derive from
    bool tpu = false;
  };
  std::unordered_map<std::string, Stem> stems;  // one pass and one lookup per class: linear in the classes
  for (uint32_t i = 0; i < tree.root().named_child_count(); ++i) {
    Node cls = tree.root().named_child(i);
    if (cls.kind() == Kind::DecoratedDefinition) cls = cls.field(Field::Definition);
    if (!cls || cls.kind() != Kind::ClassDefinition || !cls.field(Field::Name)) continue;
    const std::string_view name = cls.field(Field::Name).text();
    const std::vector<std::string> words = identifier_words(name);
    if (!names_tpu(name)) {
      stems[stem(words, facts_.gpu_backend_words)].others.push_back(cls);
      continue;
    }
    const std::string key = stem(words, facts_.tpu_words);
    if (key.empty()) continue;
    Stem& s = stems[key];
    s.tpu = true;
    for (uint32_t k = 0; k < cls.named_child_count(); ++k)
      if (Node bases = cls.named_child(k); bases.kind() == Kind::ArgumentList)
        for (uint32_t b = 0; b < bases.named_child_count(); ++b) s.bases.insert(last_name(bases.named_child(b)));
  }
  for (const auto& [key, s] : stems) {
    if (!s.tpu) continue;
    // The class a TPU one derives from is shared by both, not another device's.
    for (Node other : s.others)
      if (!s.bases.contains(other.field(Field::Name).text())) add_guard(other.span(), std::vector<Node>{other}, {true});
  }
}

bool SemanticModel::defines_function(std::string_view name) const { return function_names_.contains(std::string(name)); }

bool SemanticModel::steps_a_schedule(Node call) const {
  Node callee = call.field(Field::Function);
  if (!callee || callee.kind() != Kind::Attribute) return false;
  return any_name(facts_.step_receiver_exclusions, ascii_lower(last_name(callee.field(Field::Object))));
}

void SemanticModel::index_reads(const Tree& tree) {
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node n(&tree, id);
    if (n.kind() != Kind::Identifier) continue;
    // `f = None` in a handler binds the name; it does not use it.
    if (Node up = n.parent(); up && up.kind() == Kind::Assignment && up.field(Field::Left) == n) continue;
    reads_[n.text()].push_back(n.span().begin);
  }
}

bool SemanticModel::read_in(std::string_view name, ByteSpan span) const {
  auto it = reads_.find(name);
  if (it == reads_.end()) return false;
  auto at = std::lower_bound(it->second.begin(), it->second.end(), span.begin);
  return at != it->second.end() && *at < span.end;
}

namespace {

// Whether an expression is a truth value: a comparison, `and`/`or`/`not`, or a predicate's call
// (`is_*`, `has_*`), not a value that a later condition might test for something else.
bool is_truth_value(Node n) {
  if (!n) return false;
  switch (n.kind()) {
    case Kind::ComparisonOperator:
    case Kind::BooleanOperator:
    case Kind::NotOperator:
      return true;
    case Kind::Call: {
      const std::string_view name = last_name(n.field(Field::Function));
      return name.starts_with("is_") || name.starts_with("has_");
    }
    default:
      return false;
  }
}

// Calls `visit(cls, qualified_base)` for each base of each module-level class of `tree` that resolves
// through `ctx` (decorated classes included).
template <typename Visit>
void for_each_class_base(const Tree& tree, const PythonContext& ctx, Visit visit) {
  for (uint32_t i = 0; i < tree.root().named_child_count(); ++i) {
    Node cls = tree.root().named_child(i);
    if (cls.kind() == Kind::DecoratedDefinition) cls = cls.field(Field::Definition);
    if (!cls || cls.kind() != Kind::ClassDefinition) continue;
    for (uint32_t k = 0; k < cls.named_child_count(); ++k) {
      Node bases = cls.named_child(k);
      if (bases.kind() != Kind::ArgumentList) continue;
      for (uint32_t b = 0; b < bases.named_child_count(); ++b)
        if (const auto& q = ctx.qualified_name(bases.named_child(b))) visit(cls, *q);
    }
  }
}

}  // namespace

bool defines_model_class(const Tree& tree, const PythonContext& ctx, const CodeRoleFacts& facts) {
  bool model = false, op = false;
  for_each_class_base(tree, ctx, [&](Node, const std::string& base) {
    if (!any_qualified(facts.module_bases, base)) return;
    (any_qualified(facts.op_class_bases, base) ? op : model) = true;
  });
  return model && !op;
}

Node main_block(const Tree& tree) {
  for (uint32_t i = 0; i < tree.root().named_child_count(); ++i) {
    Node statement = tree.root().named_child(i);
    if (statement.kind() != Kind::IfStatement) continue;
    Node condition = statement.field(Field::Condition);
    if (!condition || condition.kind() != Kind::ComparisonOperator || condition.named_child_count() != 2) continue;
    Node a = condition.named_child(0), b = condition.named_child(1);
    if (a.kind() != Kind::Identifier) std::swap(a, b);
    if (a.kind() == Kind::Identifier && a.text() == "__name__" && whole_string_value(b) == "__main__" &&
        condition.text().find("==") != std::string_view::npos)
      return statement;
  }
  return {};
}

bool reads_command_line(Node block, const CodeRoleFacts& facts) {
  const Tree& tree = *block.tree();
  for (uint32_t id = block.id(); id < tree.subtree_end(block); ++id) {
    Node n(&tree, id);
    if (n.kind() == Kind::Call && any_name(facts.entry_point_calls, last_name(n.field(Field::Function)))) return true;
    if (n.kind() == Kind::Attribute && n.text() == "sys.argv") return true;
  }
  return false;
}

void SemanticModel::add_tree(const Tree& tree, const PythonContext& ctx) {
  struct Open {
    uint32_t end;  // past its subtree
    int function;  // functions_ index, or -1 for a loop
    int loop = -1; // loops index for a loop
  };
  struct Loop {
    ByteSpan body;
    int function;
    bool training = false;
  };
  std::vector<Open> open;
  std::vector<Loop> loops;
  std::vector<std::pair<int, std::string_view>> loop_calls;  // (loop, callee's last name) of calls in a loop's own function
  std::vector<int> open_loops;
  std::vector<std::vector<std::string>> decorators;
  const size_t first_function = functions_.size(), first_guard = guards_.size();
  for (const ImportBinding& b : ctx.imports().bindings()) {
    if (b.guarded) optional_names_.insert(b.local);
    // A module-level import: placed by the uses of the names it binds (place_module_imports).
    if (!b.statement || b.statement.tree() != &tree || tree.enclosing_function(b.statement)) continue;
    const ByteSpan span = b.statement.span();
    auto it = std::find_if(module_imports_.begin(), module_imports_.end(),
                           [&](const ModuleImport& m) { return m.statement.begin == span.begin; });
    if (it == module_imports_.end()) it = module_imports_.insert(module_imports_.end(), ModuleImport{span, {}, {}});
    it->names.push_back(b.local);
    import_uses_.try_emplace(b.local);
  }
  // The module's classes deriving from a data loader, wherever the file names them.
  for_each_class_base(tree, ctx, [&](Node cls, const std::string& base) {
    if (Node name = cls.field(Field::Name); name && any_qualified(facts_.loader_classes, base))
      loader_class_names_.emplace_back(name.text());
  });
  auto current_function = [&] {
    for (auto it = open.rbegin(); it != open.rend(); ++it)
      if (it->function >= 0) return it->function;
    return -1;
  };
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node node(&tree, id);
    while (!open.empty() && id >= open.back().end) {
      if (open.back().loop >= 0) open_loops.pop_back();
      open.pop_back();
    }
    switch (node.kind()) {
      case Kind::FunctionDefinition: {
        Function f;
        if (Node name = node.field(Field::Name)) f.name = std::string(name.text());
        function_names_.insert(f.name);
        // A decorated function's decorators are part of it: a finding on `@triton.jit` is the kernel's.
        f.span = node.parent() && node.parent().kind() == Kind::DecoratedDefinition ? node.parent().span() : node.span();
        f.parent = current_function();
        f.hot_parameter = takes_parameter(node, facts_.hot_parameters);
        // A method: the function's parent is a class body (through a decorated definition).
        Node up = node.parent();
        if (up && up.kind() == Kind::DecoratedDefinition) up = up.parent();
        if (up && up.kind() == Kind::Block && up.parent() && up.parent().kind() == Kind::ClassDefinition) {
          Node cls = up.parent();
          for (int c = int(classes_.size()) - 1; c >= 0; --c)
            if (classes_[c].name == (cls.field(Field::Name) ? cls.field(Field::Name).text() : std::string_view{})) {
              f.class_index = c;
              break;
            }
        }
        functions_.push_back(std::move(f));
        decorators.push_back(decorator_names(node, ctx));
        open.push_back({tree.subtree_end(node), int(functions_.size() - 1)});
        break;
      }
      case Kind::ClassDefinition: {
        Class c;
        if (Node name = node.field(Field::Name)) c.name = std::string(name.text());
        for (uint32_t i = 0; i < node.named_child_count(); ++i) {
          Node bases = node.named_child(i);
          if (bases.kind() != Kind::ArgumentList) continue;
          for (uint32_t k = 0; k < bases.named_child_count(); ++k) {
            Node b = bases.named_child(k);
            if (b.kind() == Kind::KeywordArgument) continue;
            const auto& q = ctx.qualified_name(b);
            c.bases.push_back(q ? *q : std::string(b.text()));
          }
        }
        classes_.push_back(std::move(c));
        break;
      }
      case Kind::ForStatement:
      case Kind::WhileStatement: {
        Node body = node.field(Field::Body);
        loops.push_back({body ? body.span() : node.span(), current_function(), false});
        open_loops.push_back(int(loops.size() - 1));
        open.push_back({tree.subtree_end(node), -1, int(loops.size() - 1)});
        break;
      }
      case Kind::Call: {
        const int caller = current_function();
        std::string_view last = last_name(node.field(Field::Function));
        if (!last.empty()) calls_.push_back({caller, std::string(last), node.span().begin});
        CallArguments args = call_arguments(node);
        // A step, or a call handed the loss and the optimizer (`loss_scaler(loss, optimizer)`,
        // `amp.scale_loss(loss, optimizer)`); not a scheduler handed the optimizer alone.
        bool steps = any_name(facts_.step_calls, last) && !steps_a_schedule(node);
        // The gradient step itself, not a call of a step function by name (`eval_step` returning
        // `self.train_step(data)` runs no backward pass of its own).
        bool gradient_step = steps && any_name(facts_.gradient_step_calls, last);
        if (!steps) {
          bool optimizer = false, loss = false;
          auto see = [&](std::string_view name) {
            const std::string n = ascii_lower(name);
            optimizer = optimizer || any_name(facts_.optimizer_names, n);
            loss = loss || any_name(facts_.loss_names, n);
          };
          for (Node a : args.positional) see(last_name(a));
          for (const auto& [keyword, value] : args.keywords) see(last_name(value));
          steps = gradient_step = optimizer && loss;
        }
        if (steps) {
          bool in_own_loop = false;
          for (int l : open_loops)
            if (loops[l].function == caller) loops[l].training = in_own_loop = true;
          if (caller >= 0 && !in_own_loop && gradient_step) functions_[caller].takes_step = true;
        }
        if (!steps && !last.empty())
          for (int l : open_loops)
            if (loops[l].function == caller) loop_calls.emplace_back(l, last);
        Node function = node.field(Field::Function);
        if (function && function.kind() == Kind::Subscript)
          if (Node kernel = function.field(Field::Value); kernel && kernel.kind() == Kind::Identifier)
            launches_.push_back({caller, std::string(kernel.text())});
        const auto& callee = ctx.qualified_name(function);
        if (callee && caller >= 0 && any_qualified(facts_.loader_classes, *callee)) functions_[caller].builds_loader = true;
        if (callee && caller >= 0 && any_qualified(facts_.gradient_transforms, *callee)) functions_[caller].takes_gradients = true;
        if (callee && any_qualified(facts_.tracing_transforms, *callee) && !args.positional.empty())
          if (std::string_view fn = last_name(args.positional[0]); !fn.empty()) traced_names_.emplace_back(fn);
        for (const auto& [keyword, value] : args.keywords) {
          if (any_name(facts_.host_keywords, keyword))
            if (std::string_view fn = last_name(value); !fn.empty()) host_names_.emplace_back(fn);
        }
        break;
      }
      case Kind::IfStatement: {
        // `if flash_attn_func is None: raise ...`: the name is required, not optional.
        if (Node body = node.field(Field::Consequence))
          for (uint32_t i = 0; i < body.named_child_count(); ++i)
            if (body.named_child(i).kind() == Kind::RaiseStatement) add_required(node.field(Field::Condition));
        if (!open_loops.empty() && is_periodic_condition(node.field(Field::Condition)))
          if (Node body = node.field(Field::Consequence)) periodic_.push_back({body.span(), evaluates(body)});
        if (is_lazy_initialization(node)) lazy_inits_.push_back(node.field(Field::Consequence).span());
        add_eval_branches(node);
        const std::vector<IfBranch> paths = branches_of(node);
        {
          // `if torch.__version__.startswith('0'): <old path> else: <the code>`: what only older
          // releases than a port's run is dead, beside the path that runs.
          std::vector<Node> conditions, bodies;
          for (const IfBranch& p : paths) {
            conditions.push_back(p.condition);
            bodies.push_back(p.body);
          }
          if (const std::vector<bool> dead = dead_paths(conditions, ctx); !dead.empty()) {
            // Each dead path is guarded alone: the path that runs is no guarded code.
            for (size_t k = 0; k < bodies.size(); ++k)
              if (dead[k] && bodies[k]) add_guard(bodies[k].span(), std::vector<Node>{bodies[k]}, {true});
            break;
          }
        }
        if (std::any_of(paths.begin(), paths.end(), [&](const IfBranch& p) { return is_guard(p.condition); })) {
          // The guarded path: a branch whose condition is a guard, or the else of a negated one.
          std::vector<Node> bodies;
          std::vector<bool> taken;
          bool negated_guard = false;
          for (const IfBranch& p : paths) {
            bodies.push_back(p.body);
            if (!p.condition) {
              taken.push_back(negated_guard);
              continue;
            }
            const bool guard = is_guard(p.condition);
            taken.push_back(guard && !negated(p.condition));
            negated_guard = negated_guard || (guard && negated(p.condition));
          }
          add_guard(node.span(), bodies, taken);
          // `if not torch.cuda.is_available(): return`: what follows in the block runs only when
          // the guard holds.
          if (paths.size() == 1 && leaves_for_fallback(paths[0].body) && exits_unless_guard_holds(paths[0].condition))
            if (std::vector<Node> rest = statements_after(node); !rest.empty())
              add_guard(ByteSpan{node.span().begin, rest.back().span().end}, {{paths[0].body}, rest}, {false, true});
          break;
        }
        // A dual path: one branch runs on a TPU (`TPUEstimator`, `xm.xla_device()`), so the others
        // are another device's, whatever the condition names.
        std::vector<Node> bodies;
        std::vector<bool> taken;
        bool tpu_path = false;
        for (const IfBranch& p : paths) {
          if (!p.body) continue;
          const bool tpu = is_tpu_path(p.body);
          bodies.push_back(p.body);
          taken.push_back(!tpu);
          tpu_path = tpu_path || tpu;
        }
        if (bodies.size() > 1 && tpu_path) {
          add_guard(node.span(), bodies, taken);
          break;
        }
        // `if self.immiscible:` (or the else of `if not self.immiscible:`, with no elif), or
        // `if self.dcn_on_last_conv and i == last:`: what runs only when a model's off-by-default
        // option is on.
        const Node condition = opt_in_term(paths[0].condition);
        const std::string_view option = condition ? opt_in_option(condition) : std::string_view{};
        if (option.empty() || option_operand(condition).kind() != Kind::Attribute) break;
        Node branch = paths[0].body;
        if (negated(condition)) branch = paths.size() == 2 && !paths[1].condition ? paths[1].body : Node();
        if (branch) optional_branches_.push_back({branch.span(), std::string(option)});
        break;
      }
      case Kind::ConditionalExpression:
        // `body if condition else alternative`
        if (node.named_child_count() == 3)
          if (const std::optional<bool> holds = holds_on_current_releases(node.named_child(1), ctx)) {
            const Node dead = node.named_child(*holds ? 2 : 0);
            add_guard(dead.span(), std::vector<Node>{dead}, {true});
            break;
          }
        if (node.named_child_count() == 3 && is_guard(node.named_child(1))) {
          const bool flipped = negated(node.named_child(1));
          add_guard(node.span(), {node.named_child(0), node.named_child(2)}, {!flipped, flipped});
        }
        break;
      case Kind::TryStatement:
        // A dual path: a handler falls back to a TPU (`try: jax.devices("gpu") except RuntimeError:
        // jax.devices("tpu")`), so the body is another device's, as in an `if` beside a TPU path.
        if (Node body = node.field(Field::Body); body && !is_tpu_path(body)) {
          Node tpu_handler;
          for (uint32_t i = 0; i < node.named_child_count() && !tpu_handler; ++i)
            if (Node h = node.named_child(i); h.kind() == Kind::ExceptClause && is_tpu_path(h)) tpu_handler = h;
          if (tpu_handler) {
            add_guard(node.span(), std::vector<Node>{body, tpu_handler}, {true, false});
            break;
          }
        }
        for (uint32_t i = 0; i < node.named_child_count(); ++i) {
          Node handler = node.named_child(i);
          if (handler.kind() != Kind::ExceptClause) continue;
          if (is_optional_import(node, handler)) {
            // The names the handler binds (`HAS_APEX = False`, `fused = None`) say whether the
            // optional library is there: a branch on them is a guard.
            bool imports = false, only_none = true;
            std::vector<std::string_view> bound;
            for (uint32_t k = handler.id(); k < tree.subtree_end(handler); ++k) {
              Node a(&tree, k);
              if (a.kind() == Kind::ImportStatement || a.kind() == Kind::ImportFromStatement) imports = true;
              if (a.kind() != Kind::Assignment) continue;
              if (Node left = a.field(Field::Left); left && left.kind() == Kind::Identifier) {
                optional_names_.insert(std::string(left.text()));
                bound.push_back(left.text());
                Node right = a.field(Field::Right);
                only_none = only_none && right && right.kind() == Kind::None;
              }
            }
            // A version fallback: the handler itself (not a nested try) imports every name the body
            // imports, from another place of the same package (`from mmcv.ops import X` / `except
            // ImportError: from mmcv.cnn.bricks import X`). The code needs the names either way: no
            // optional library, no guard. A fallback to another library (Transformer Engine, then apex,
            // then torch) leaves the first optional.
            if (Node body = node.field(Field::Body); imports && body) {
              auto package = [](std::string_view target) { return target.substr(0, target.find('.')); };
              std::vector<std::string_view> tried, fallback, tried_packages;
              for (const ImportBinding& b : ctx.imports().bindings()) {
                if (!b.statement || b.statement.tree() != &tree) continue;
                const uint32_t at = b.statement.span().begin;
                if (body.span().begin <= at && at < body.span().end) {
                  tried.push_back(b.local);
                  tried_packages.push_back(package(b.target));
                }
                Node up = b.statement.parent();
                if (up && up.kind() == Kind::Block && up.parent() == handler &&
                    std::find(tried_packages.begin(), tried_packages.end(), package(b.target)) != tried_packages.end())
                  fallback.push_back(b.local);
              }
              const bool same = !tried.empty() && std::all_of(tried.begin(), tried.end(), [&](std::string_view n) {
                return std::find(fallback.begin(), fallback.end(), n) != fallback.end();
              });
              if (same) {
                for (std::string_view n : tried) optional_names_.erase(std::string(n));
                break;
              }
            }
            // Whether the handler's names are a fallback is known once the whole file is seen.
            if (Node body = node.field(Field::Body)) {
              add_guard(body.span(), {body, handler}, {imports, false});
              guards_.back().fallback_names = std::move(bound);
              guards_.back().none_only = only_none && !imports;
            }
            break;
          }
        }
        break;
      case Kind::AssertStatement:
        add_required(node);
        break;
      case Kind::Assignment:
        // `use_kernel = fused and jax.default_backend() == "gpu"`: a name holding a guard's truth
        // guards what a branch on it runs (`if use_kernel:`).
        if (Node left = node.field(Field::Left); left && left.kind() == Kind::Identifier) {
          if (Node right = unparenthesized(node.field(Field::Right)); is_truth_value(right) && is_guard(right))
            guard_flags_.insert(std::string(left.text()));
          // `TORCH_VERSION = digit_version(torch.__version__)` at module level: the name holds the release.
          if (current_function() < 0)
            if (std::vector<int> release = release_read_by(node.field(Field::Right), ctx); !release.empty())
              release_names_.insert_or_assign(std::string(left.text()), std::move(release));
        }
        break;
      case Kind::Identifier: {
        if (!ctx.imports().binds(node.text()) && loader_class_names_.empty()) break;
        Node up = node.parent();
        if (up && (up.kind() == Kind::DottedName || up.kind() == Kind::AliasedImport)) break;  // the import itself
        if (up && up.kind() == Kind::Attribute && up.field(Field::Attribute) == node) break;    // `x.name`
        if (auto it = import_uses_.find(std::string(node.text())); it != import_uses_.end())
          it->second.push_back(node.span().begin);
        // `loader = DataLoader if weighted else InfiniteDataLoader`
        const int function = current_function();
        if (function < 0) break;
        const bool local = std::find(loader_class_names_.begin(), loader_class_names_.end(), node.text()) !=
                           loader_class_names_.end();
        if (local) {
          functions_[function].builds_loader = true;
        } else if (ctx.imports().binds(node.text())) {
          const auto& q = ctx.qualified_name(node);
          if (q && any_qualified(facts_.loader_classes, *q)) functions_[function].builds_loader = true;
        }
        break;
      }
      default:
        if (node.kind() == Kind::ReturnStatement && node.named_child_count() > 0)
          if (const int function = current_function(); function >= 0) functions_[function].returns = true;
        break;
    }
  }
  // A loop that calls a compiled function of the file taking gradients runs a training step
  // (big_vision's `update_fn`, `@partial(jax.jit)` around `jax.value_and_grad(loss_fn)`), whatever
  // the step is named.
  for (size_t i = first_function; i < functions_.size(); ++i)
    functions_[i].traced = std::any_of(decorators[i - first_function].begin(), decorators[i - first_function].end(),
                                       [&](const std::string& d) { return any_qualified(facts_.tracing_transforms, d); });
  if (!loop_calls.empty()) {
    std::unordered_set<std::string_view> steps;
    const std::unordered_set<std::string_view> handed(traced_names_.begin(), traced_names_.end());
    for (size_t i = first_function; i < functions_.size(); ++i)
      // A compiled function that takes gradients, or a helper that runs the step itself (timm's
      // `_backward(loss)`, whose `loss.backward()` and `optimizer.step()` the loop reaches through it).
      if (const Function& f = functions_[i]; (f.takes_gradients && (f.traced || handed.contains(f.name))) || f.takes_step)
        steps.insert(f.name);
    for (const auto& [l, name] : loop_calls)
      if (steps.contains(name)) loops[l].training = true;
  }
  for (const Loop& l : loops)
    if (l.training) {
      training_loops_.push_back(l.body);
      if (l.function >= 0) functions_[l.function].training_loop = true;
    }
  add_classes_beside_tpu_ones(tree);
  if (guards_.size() > first_guard) index_reads(tree);
  for (size_t i = first_function; i < functions_.size(); ++i) {
    Function& f = functions_[i];
    f.own = own_role(f, decorators[i - first_function]);
    f.host_by_default = f.own == Context::Unknown && f.class_index >= 0 && dataset_class(classes_[f.class_index], f.class_index);
  }
}

bool SemanticModel::evaluates(Node block) const {
  const Tree& tree = *block.tree();
  for (uint32_t id = block.id(); id < tree.subtree_end(block); ++id)
    if (Node n(&tree, id); n.kind() == Kind::Call && any_name(facts_.eval_calls, ascii_lower(last_name(n.field(Field::Function)))))
      return true;
  return false;
}

// A class is host code by its base, or by its name unless it is a model (`DepthLSSTransform(nn.Module)`
// is a layer); a name that also serves a loss's helpers (`*Sampler`: a detection head's target
// sampler, `sample(assign_result, bboxes, gt_bboxes)`) only when the class iterates, as a torch
// Sampler does (`__iter__`).
bool SemanticModel::dataset_class(const Class& cls, int class_index) const {
  auto derives = [&](const std::vector<std::string>& bases) {
    return std::any_of(cls.bases.begin(), cls.bases.end(), [&](const std::string& b) { return any_qualified(bases, b); });
  };
  if (derives(facts_.dataset_bases)) return true;
  if (derives(facts_.module_bases)) return false;
  auto iterates = [&] {
    return std::any_of(functions_.begin(), functions_.end(),
                       [&](const Function& m) { return m.class_index == class_index && m.name == "__iter__"; });
  };
  return any_name(facts_.host_classes, cls.name) || (any_name(facts_.iterated_host_classes, cls.name) && iterates());
}

Context SemanticModel::own_role(const Function& f, const std::vector<std::string>& decorators) const {
  const Class* cls = f.class_index >= 0 ? &classes_[f.class_index] : nullptr;
  if (any_name(facts_.test_functions, f.name) || (cls && any_name(facts_.test_functions, cls->name))) return Context::Test;
  for (const std::string& d : decorators)
    if (any_qualified(facts_.tracing_transforms, d)) return Context::HotPath;
  // A memoized function (`@functools.lru_cache`) computes each value once, whoever calls it: a
  // window or a mel filter bank a loss fetches every step is a constant after the first.
  for (const std::string& d : decorators)
    if (any_qualified(facts_.memoizing_decorators, d)) return Context::OneTime;
  if (any_name(facts_.hot_functions, f.name)) return Context::HotPath;
  // A loss's target sampler or assigner (`sample(self, assign_result, bboxes, gt_bboxes)`) runs in the
  // loss, every step.
  if (f.hot_parameter) return Context::HotPath;
  if (cls) {
    const bool model = std::any_of(cls->bases.begin(), cls->bases.end(),
                                   [&](const std::string& b) { return any_qualified(facts_.module_bases, b); });
    const bool dataset = dataset_class(*cls, f.class_index);
    // A dataset's offline preparation (`create_groundtruth_database`, `create_*_infos`) runs once,
    // before training; its evaluation and result formatting (`evaluate`, `format_results`) after
    // it. Its other methods are host code unless their callers say otherwise (finish()): what only
    // its formatting calls (`_format_bbox` -> `nusc_box_to_cam_box3d`) is evaluation.
    if (dataset) {
      if (any_name(facts_.preparation_methods, f.name)) return Context::OneTime;
      return any_name(facts_.eval_functions, f.name) ? Context::Eval : Context::Unknown;
    }
    if (any_name(facts_.eval_classes, cls->name) && f.name != "__init__") return Context::Eval;
    // A loss's matching helper (`HungarianAssigner3D.assign`, `FocalLossCost.__call__`), made from a
    // config through a registry: no model calls it by name, and it runs in the loss, every step.
    if (any_name(facts_.hot_classes, cls->name) && f.name != "__init__") return Context::HotPath;
    if (any_name(facts_.hot_methods, f.name) && (model || f.name == "forward")) return Context::HotPath;
    // An optimizer's or a scheduler's `step` and its helpers run every step of the training loop
    // that calls them; its constructor and state loading once.
    const bool optimizer = std::any_of(cls->bases.begin(), cls->bases.end(),
                                       [&](const std::string& b) { return any_qualified(facts_.optimizer_bases, b); });
    if (optimizer) return any_name(facts_.one_time_functions, f.name) ? Context::OneTime : Context::Loop;
  }
  // A trainer's per-step or per-epoch hook (`on_train_epoch_end`), a metric logger's per-epoch sync
  // (an evaluator's own sync is evaluation, above).
  if (any_name(facts_.loop_functions, f.name)) return Context::Loop;
  if (any_name(facts_.host_functions, f.name)) return Context::Host;
  if (any_name(facts_.one_time_functions, f.name)) return Context::OneTime;
  if (any_name(facts_.eval_functions, f.name)) return Context::Eval;
  return Context::Unknown;
}

Context SemanticModel::caller_role(const CallSite& c) const {
  if (c.in_training_loop) return Context::HotPath;
  if (c.guarded) return Context::Guarded;
  if (c.branch != Context::Unknown) return c.branch;
  if (c.caller < 0) return module_role();
  return functions_[c.caller].role;
}

Context SemanticModel::module_role() const { return host_module_ ? Context::Host : Context::OneTime; }

void SemanticModel::add_required(Node n) {
  if (!n) return;
  const Tree& tree = *n.tree();
  for (uint32_t id = n.id(); id < tree.subtree_end(n); ++id)
    if (Node i(&tree, id); i.kind() == Kind::Identifier) required_names_.insert(std::string(i.text()));
}

void SemanticModel::finish() {
  disjoint_spans(lazy_inits_);
  disjoint_spans(eval_branches_);
  // An optional import's handler binds a fallback (`fused = None`, `HAS_APEX = False`) when one of
  // its names is not required elsewhere in the file (asserted, or raised on when missing). A
  // handler that binds only None, one of whose names the file requires (`flash_attn_func = None`
  // and `if flash_attn_func is None: raise ImportError(...)`), binds no fallback: the code cannot
  // run without the library, and the import is no guard.
  for (Guard& g : guards_)
    for (std::string_view name : g.fallback_names) {
      if (!required_names_.contains(std::string(name))) g.taken.front() = g.condition_taken = true;
      else if (g.none_only) g.refused = true;
    }
  // A branch on a refused import's names (`if natten.has_fused_na():` where `natten = None` is refused)
  // chooses between two uses of the library: no guard either.
  std::unordered_set<std::string_view> refused_names;
  for (const Guard& g : guards_)
    if (g.refused) refused_names.insert(g.fallback_names.begin(), g.fallback_names.end());
  auto by_refused_names = [&](const Guard& g) {
    auto it = optional_name_guards_.find(g.span.begin);
    return it != optional_name_guards_.end() &&
           std::all_of(it->second.begin(), it->second.end(), [&](const std::string& n) { return refused_names.contains(n); });
  };
  guards_.erase(std::remove_if(guards_.begin(), guards_.end(),
                               [&](const Guard& g) { return g.refused || (!refused_names.empty() && by_refused_names(g)); }),
                guards_.end());
  for (auto& [name, offsets] : reads_) std::sort(offsets.begin(), offsets.end());  // the trees', in any order
  functions_by_begin_.resize(functions_.size());
  std::iota(functions_by_begin_.begin(), functions_by_begin_.end(), 0);
  std::stable_sort(functions_by_begin_.begin(), functions_by_begin_.end(),
                   [&](int a, int b) { return functions_[a].span.begin < functions_[b].span.begin; });
  give_own_roles();
  for (Function& f : functions_) f.role = f.own;
  if (!training_loops_.empty() || !lazy_inits_.empty() || !eval_branches_.empty())
    for (CallSite& c : calls_) {
      c.in_training_loop = in_training_loop(c.at);
      c.branch = branch_role(c.at);
    }
  if (!guards_.empty())
    for (CallSite& c : calls_) c.guarded = guarded_use(c.callee, c.at, false);
  std::unordered_map<std::string_view, std::vector<const CallSite*>> calls_of;
  for (const CallSite& c : calls_) calls_of[c.callee].push_back(&c);
  // A function of no role of its own takes its callers' (and, nested, its parent's): the hot
  // path when any of them is on it, unknown when any is unknown, else the excused role they
  // share (a function called only behind guards is guarded code). Roles only move from Unknown, once per pass; a few passes settle chains of helpers.
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < functions_.size(); ++i) {
      Function& f = functions_[i];
      if (f.own != Context::Unknown) continue;
      RoleVote vote;
      if (auto it = calls_of.find(f.name); it != calls_of.end())
        for (const CallSite* c : it->second)
          if (c->caller != int(i)) vote.take(caller_role(*c));
      if (f.parent >= 0) {
        // What a data loader's builder defines inside is its pipeline (`dataset.map(parse)`).
        const Function& parent = functions_[f.parent];
        vote.take(parent.builds_loader && parent.own == Context::OneTime && host_module_ ? Context::Host : parent.role);
      }
      Context role = vote.role();
      if (role == Context::Unknown && (host_module_ || f.host_by_default)) role = Context::Host;
      if (role == Context::Unknown && one_time_module_) role = Context::OneTime;
      // A data loader's method the training loop calls (`next_batch`) is the host's data path, not
      // the step: what it computes is on the host's tensors.
      if (role == Context::HotPath && f.host_by_default) role = Context::Host;
      if (role != f.role) {
        f.role = role;
        changed = true;
      }
    }
    if (!changed) break;
  }
  guard_classes_built_behind_guards(calls_of);
  if (eval_module_) default_eval_roles();
  place_module_imports();
  mark_optional_functions(calls_of);
}

// A class the file constructs only in guarded code (maxtext's `TransformerEngineQuantization(config)`,
// built only under `if quant_cfg.startswith("te_"):`) runs its methods on that path alone: they are
// guarded code, its constructor and its static helpers with them. A method that code outside the
// class calls by name, unguarded, keeps its role; a dunder's outside calls are other classes' own
// (`super().__init__()`). Nothing of a class with no construction in the file changes.
void SemanticModel::guard_classes_built_behind_guards(
    const std::unordered_map<std::string_view, std::vector<const CallSite*>>& calls_of) {
  if (guards_.empty() || classes_.empty()) return;
  // The class each function is in (its own, or that of the nearest function around it), and each
  // class's functions: one walk, whatever the number of classes.
  std::vector<int> owner(functions_.size(), -1);
  std::vector<std::vector<int>> members(classes_.size());
  for (size_t i = 0; i < functions_.size(); ++i) {
    for (int fn = int(i); fn >= 0 && owner[i] < 0; fn = functions_[fn].parent) owner[i] = functions_[fn].class_index;
    if (owner[i] >= 0) members[owner[i]].push_back(int(i));
  }
  // Where the calls of a name come from, all of them and the unguarded ones: kNone, a class, or
  // kElsewhere (module level, code of no class, or several classes). Once per name.
  constexpr int kNone = -1, kElsewhere = -2;
  struct Origins {
    int all = kNone, unguarded = kNone;
  };
  std::unordered_map<std::string_view, Origins> origins;
  auto origins_of = [&](std::string_view name) -> Origins {
    auto [it, inserted] = origins.try_emplace(name);
    if (!inserted) return it->second;
    auto calls = calls_of.find(name);
    if (calls == calls_of.end()) return it->second;
    auto merge = [&](int& into, int from) { into = into == kNone || into == from ? from : kElsewhere; };
    for (const CallSite* c : calls->second) {
      const int from = c->caller >= 0 && owner[c->caller] >= 0 ? owner[c->caller] : kElsewhere;
      merge(it->second.all, from);
      if (caller_role(*c) != Context::Guarded) merge(it->second.unguarded, from);
    }
    return it->second;
  };
  auto from_outside = [](int origin, int k) { return origin != kNone && origin != k; };
  for (size_t k = 0; k < classes_.size(); ++k) {
    const Origins built = origins_of(classes_[k].name);
    if (!from_outside(built.all, int(k)) || from_outside(built.unguarded, int(k))) continue;
    for (int i : members[k]) {
      Function& f = functions_[i];
      if (f.role == Context::Test) continue;
      const bool dunder = f.name.starts_with("__") && f.name.ends_with("__");
      if (!dunder && from_outside(origins_of(f.name).unguarded, int(k))) continue;
      f.role = Context::Guarded;
    }
  }
}

void SemanticModel::mark_optional_functions(
    const std::unordered_map<std::string_view, std::vector<const CallSite*>>& calls_of) {
  if (optional_branches_.empty()) return;
  // A function every call of which (but its own) is optional code: a chain of helpers settles in a few passes.
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < functions_.size(); ++i) {
      Function& f = functions_[i];
      auto it = calls_of.find(f.name);
      if (!f.optional_option.empty() || it == calls_of.end()) continue;
      std::string_view option;
      for (const CallSite* c : it->second) {
        if (c->caller == int(i)) continue;
        std::string_view o = optional_branch_at(c->at);
        if (o.empty() && c->caller >= 0) o = optional_option_at(functions_[c->caller].span.begin);
        option = o;
        if (o.empty()) break;
      }
      if (option.empty()) continue;
      f.optional_option = std::string(option);
      changed = true;
    }
    if (!changed) break;
  }
}

std::string_view SemanticModel::optional_branch_at(uint32_t offset) const {
  for (const OptionalBranch& b : optional_branches_)
    if (b.body.begin <= offset && offset < b.body.end) return b.option;
  return {};
}

std::string_view SemanticModel::optional_option_at(uint32_t offset) const {
  if (std::string_view o = optional_branch_at(offset); !o.empty()) return o;
  for (int f = innermost_function(offset); f >= 0; f = functions_[f].parent)
    if (!functions_[f].optional_option.empty()) return functions_[f].optional_option;
  return {};
}

void SemanticModel::give_own_roles() {
  for (Function& f : functions_) {
    if (f.own != Context::Unknown) continue;
    // Handed to a tracing transform or to a host keyword anywhere in the file.
    f.own = handed_role(f.name);
  }
  // A function that launches a kernel of the file (`kernel[grid](...)`, `kernel` decorated with a
  // tracing transform: `@triton.jit`) runs it on the hot path.
  for (const Launch& l : launches_) {
    if (l.caller < 0 || functions_[l.caller].own != Context::Unknown) continue;
    const bool kernel = std::any_of(functions_.begin(), functions_.end(), [&](const Function& k) {
      return k.traced && k.parent < 0 && k.class_index < 0 && k.name == l.kernel;
    });
    if (kernel) functions_[l.caller].own = Context::HotPath;
  }
  for (Function& f : functions_) {
    if (f.own != Context::Unknown) continue;
    // What a function holding a training loop runs outside it is setup and teardown, once.
    if (f.training_loop) f.own = Context::OneTime;
    // A host module's top-level function that builds a data loader or input pipeline and returns
    // it is setup (`create_dataloader`); the Dataset, its transforms and collate stay host code.
    else if (host_module_ && f.builds_loader && f.returns && f.parent < 0 && f.class_index < 0)
      f.own = Context::OneTime;
  }
}

void SemanticModel::default_eval_roles() {
  // An evaluation or inference module's code of no role of its own is evaluation, though a script's
  // module level calls it (`run(**vars(opt))`); but a top-level function the file does not call
  // takes its role from the modules that do (core/project_links), as a metric a loss uses.
  std::unordered_set<std::string_view> called;
  for (const CallSite& c : calls_)
    if (c.caller < 0 || functions_[c.caller].name != c.callee) called.insert(c.callee);
  for (Function& f : functions_) {
    if (f.own != Context::Unknown || (f.role != Context::Unknown && f.role != Context::OneTime)) continue;
    if (f.parent < 0 && f.class_index < 0 && !called.contains(f.name)) continue;
    f.role = Context::Eval;
  }
}

void SemanticModel::place_module_imports() {
  // The most demanding context of the uses of the names an import binds: `import triton` in a
  // module of kernels is the hot path's, an import only `main()` uses is one-time code.
  auto rank = [](Context c) {
    switch (c) {
      case Context::HotPath: return 5;
      case Context::Loop: return 4;
      case Context::Host: return 3;
      case Context::Eval: return 2;
      case Context::OneTime: return 1;
      default: return 0;
    }
  };
  struct Uses {
    Context best = Context::Unknown;
    bool unknown = false;  // a use in code of no known role
    bool guarded = true;   // every use is on a guarded path (`if use_kernel: out = segment_mm(x)`)
  };
  // Per name: a name several imports bind (`import torch` in each of a file's sections) is used
  // at the same places for each.
  std::unordered_map<std::string_view, Uses> uses_of;
  for (ModuleImport& m : module_imports_) {
    Context best = Context::Unknown;
    bool unknown = false, used = false, guarded = true;
    for (const std::string& name : m.names) {
      auto [it, first] = uses_of.try_emplace(name);
      const std::vector<uint32_t>& uses = import_uses_[name];
      if (first)
        for (uint32_t at : uses) {
          const Context c = role_at(at);
          it->second.unknown = it->second.unknown || c == Context::Unknown;
          if (rank(c) > rank(it->second.best)) it->second.best = c;
          it->second.guarded = it->second.guarded && (c == Context::Guarded || guarded_use(name, at, true));
        }
      unknown = unknown || it->second.unknown;
      if (rank(it->second.best) > rank(best)) best = it->second.best;
      used = used || !uses.empty();
      guarded = guarded && it->second.guarded;
    }
    // Code of no known role, and one-time code at most: unknown, as a helper's callers make it.
    m.used = unknown || best != Context::Unknown;
    m.context = rank(best) <= rank(Context::OneTime) && unknown ? Context::Unknown : best;
    // Used only where a guard holds: the import serves the guarded path alone.
    if (used && guarded) {
      m.used = true;
      m.context = Context::Guarded;
    }
  }
}

SemanticModel::Mode SemanticModel::mode_of(Node condition) const {
  condition = unparenthesized(condition);
  if (!condition) return Mode::Neither;
  auto lower_name = [](Node n) -> std::string {
    n = unparenthesized(n);
    if (!n) return "";
    if (n.kind() == Kind::String) return ascii_lower(whole_string_value(n).value_or(""));
    return ascii_lower(last_name(n));
  };
  auto is_flag = [&](std::string_view name) { return any_name(facts_.training_flags, name); };
  if (condition.kind() == Kind::NotOperator) {
    const Mode inner = mode_of(condition.named_child(0));
    return inner == Mode::Training ? Mode::Eval : inner == Mode::Eval ? Mode::Training : Mode::Neither;
  }
  if (condition.kind() == Kind::Identifier || condition.kind() == Kind::Attribute)
    return is_flag(lower_name(condition)) ? Mode::Training : Mode::Neither;
  // `mode == ModeKeys.EVAL`, `phase != 'train'`: a mode or phase compared with one value.
  if (condition.kind() != Kind::ComparisonOperator || condition.named_child_count() != 2 || condition.child_count() != 3)
    return Mode::Neither;
  const std::string_view op = condition.child(1).type();
  if (op != "==" && op != "!=") return Mode::Neither;
  const std::string left = lower_name(condition.named_child(0)), right = lower_name(condition.named_child(1));
  auto is_mode = [](std::string_view name) { return name == "mode" || name == "phase" || name.ends_with("_mode"); };
  const std::string& value = is_mode(left) ? right : is_mode(right) ? left : std::string();
  Mode m = Mode::Neither;
  if (is_flag(value)) m = Mode::Training;
  else if (any_name(facts_.eval_mode_words, value)) m = Mode::Eval;
  if (op == "!=" && m != Mode::Neither) m = m == Mode::Training ? Mode::Eval : Mode::Training;
  return m;
}

void SemanticModel::add_eval_branches(Node if_statement) {
  const std::vector<IfBranch> paths = branches_of(if_statement);
  for (size_t k = 0; k < paths.size(); ++k) {
    if (!paths[k].body) continue;
    const Mode m = paths[k].condition ? mode_of(paths[k].condition) : Mode::Neither;
    if (m == Mode::Eval) eval_branches_.push_back(paths[k].body.span());
    if (m != Mode::Training) continue;
    // Its else (a plain if/else: with elifs, the else is the last of several modes), or what
    // follows when it returns.
    if (paths.size() == 2 && k == 0 && !paths[1].condition && paths[1].body) eval_branches_.push_back(paths[1].body.span());
    // (From the if's end to its block's: the rest of the block, without listing its statements,
    // which for a run of such ifs would be quadratic in the block.)
    if (paths.size() == 1 && paths[0].body.named_child_count() &&
        paths[0].body.named_child(paths[0].body.named_child_count() - 1).kind() == Kind::ReturnStatement)
      if (Node block = if_statement.parent(); block && block.kind() == Kind::Block &&
                                              if_statement.span().end < block.span().end)
        eval_branches_.push_back(ByteSpan{if_statement.span().end, block.span().end});
  }
}

bool SemanticModel::in_training_loop(uint32_t offset) const {
  if (!in_any(training_loops_, offset) || in_disjoint(lazy_inits_, offset) || in_disjoint(eval_branches_, offset))
    return false;
  return std::none_of(periodic_.begin(), periodic_.end(), [&](const Periodic& p) { return p.body.begin <= offset && offset < p.body.end; });
}

Context SemanticModel::branch_role(uint32_t offset) const {
  if (in_disjoint(lazy_inits_, offset)) return Context::OneTime;
  if (in_disjoint(eval_branches_, offset)) return Context::Eval;
  const Periodic* inner = nullptr;
  for (const Periodic& p : periodic_)
    if (p.body.begin <= offset && offset < p.body.end && (!inner || p.body.begin >= inner->body.begin)) inner = &p;
  if (!inner || !in_any(training_loops_, inner->body.begin)) return Context::Unknown;
  return inner->evaluates ? Context::Eval : Context::OneTime;
}

void SemanticModel::disjoint_spans(std::vector<ByteSpan>& spans) {
  std::sort(spans.begin(), spans.end(), [](ByteSpan a, ByteSpan b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::vector<ByteSpan> out;
  for (ByteSpan s : spans) {
    if (!out.empty() && s.begin < out.back().end) {
      out.back().end = std::max(out.back().end, s.end);  // within (or overlapping) the one before
      continue;
    }
    out.push_back(s);
  }
  spans = std::move(out);
}

bool SemanticModel::in_disjoint(const std::vector<ByteSpan>& spans, uint32_t offset) {
  auto after = std::upper_bound(spans.begin(), spans.end(), offset, [](uint32_t o, ByteSpan s) { return o < s.begin; });
  return after != spans.begin() && offset < std::prev(after)->end;
}

bool SemanticModel::in_any(const std::vector<ByteSpan>& spans, uint32_t offset) {
  return std::any_of(spans.begin(), spans.end(), [&](ByteSpan s) { return s.begin <= offset && offset < s.end; });
}

int SemanticModel::innermost_function(uint32_t offset) const {
  // Functions nest or are apart: the innermost one holding `offset` is the last to begin at or
  // before it, or one of that one's enclosing functions.
  auto after = std::upper_bound(functions_by_begin_.begin(), functions_by_begin_.end(), offset,
                                [&](uint32_t o, int f) { return o < functions_[f].span.begin; });
  if (after == functions_by_begin_.begin()) return -1;
  for (int f = *std::prev(after); f >= 0; f = functions_[f].parent)
    if (functions_[f].span.begin <= offset && offset < functions_[f].span.end) return f;
  return -1;
}

void SemanticModel::add_guard(ByteSpan span, const std::vector<Node>& branches, const std::vector<bool>& taken) {
  std::vector<std::vector<Node>> paths;
  for (Node b : branches) paths.push_back(b ? std::vector<Node>{b} : std::vector<Node>{});
  add_guard(span, paths, taken);
}

void SemanticModel::add_guard(ByteSpan span, const std::vector<std::vector<Node>>& paths, const std::vector<bool>& taken) {
  Guard g{span, {}, {}, !taken.empty() && taken.front(), {}};
  for (size_t k = 0; k < paths.size(); ++k) {
    if (paths[k].empty()) continue;
    g.branches.push_back({paths[k].front().span().begin, paths[k].back().span().end});
    g.taken.push_back(k < taken.size() && taken[k]);
  }
  guards_.push_back(std::move(g));
}

bool SemanticModel::in_guard(uint32_t offset) const {
  return std::any_of(guards_.begin(), guards_.end(), [&](const Guard& g) { return g.span.begin <= offset && offset < g.span.end; });
}

bool SemanticModel::guarded_use(std::string_view name, uint32_t offset, bool only_guarded_path) const {
  for (const Guard& g : guards_) {
    if (offset < g.span.begin || offset >= g.span.end) continue;
    if (only_guarded_path) {
      bool taken = g.condition_taken;  // in no branch: in the condition
      for (size_t b = 0; b < g.branches.size(); ++b)
        if (g.branches[b].begin <= offset && offset < g.branches[b].end) taken = g.taken[b];
      if (!taken) continue;
    }
    // The guard's other path uses the same name: both paths need it, and it is not optional.
    bool other_path_uses = false;
    for (size_t b = 0; b < g.branches.size() && !other_path_uses; ++b) {
      if (g.branches[b].begin <= offset && offset < g.branches[b].end) continue;
      other_path_uses = read_in(name, g.branches[b]);
    }
    if (!other_path_uses) return true;
  }
  return false;
}

Context SemanticModel::handed_role(std::string_view name) const {
  if (std::find(traced_names_.begin(), traced_names_.end(), name) != traced_names_.end()) return Context::HotPath;
  if (std::find(host_names_.begin(), host_names_.end(), name) != host_names_.end()) return Context::Host;
  return Context::Unknown;
}

// A test module's code is test code, behind a device guard too (`if torch.cuda.is_available():` in a test script).
Context SemanticModel::context_of_use(std::string_view name, uint32_t offset) const {
  if (test_module_) return Context::Test;
  return guarded_use(name, offset, true) ? Context::Guarded : role_at(offset);
}

Context SemanticModel::context_at(uint32_t offset) const {
  if (test_module_) return Context::Test;
  return in_guard(offset) ? Context::Guarded : role_at(offset);
}

Context SemanticModel::role_at(uint32_t offset) const {
  if (test_module_) return Context::Test;
  if (in_training_loop(offset)) return Context::Loop;
  if (Context branch = branch_role(offset); branch != Context::Unknown) return branch;
  const int f = innermost_function(offset);
  if (f >= 0) return functions_[f].role;
  for (const ModuleImport& m : module_imports_)
    if (m.statement.begin <= offset && offset < m.statement.end && m.used) return m.context;
  return module_role();
}

std::vector<SemanticModel::TopLevelFunction> SemanticModel::top_level_functions() const {
  std::vector<TopLevelFunction> out;
  std::unordered_map<std::string_view, std::vector<size_t>> by_name;
  for (const Function& f : functions_)
    if (f.parent < 0 && f.class_index < 0) {
      by_name[f.name].push_back(out.size());
      out.push_back({f.name, f.span, false, f.role});
    }
  if (out.empty()) return out;
  for (const CallSite& c : calls_) {
    auto it = by_name.find(c.callee);
    if (it == by_name.end() || c.guarded) continue;
    const Context by = caller_role(c);
    if (by == Context::Guarded || by == Context::Test) continue;
    for (size_t k : it->second)
      if (!(out[k].span.begin <= c.at && c.at < out[k].span.end)) out[k].used_here = true;
  }
  // Pieces re-parsed after a syntax error add their functions after the whole parse's.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.span.begin < b.span.begin; });
  return out;
}

}  // namespace tpulint::python
