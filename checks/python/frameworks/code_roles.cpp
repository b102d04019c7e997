#include "checks/python/frameworks/code_roles.h"

#include <stdexcept>
#include <string>

#include "data/python_code_roles.h"

namespace tpulint::checks {

namespace {

// The table's facts: those of the semantic model, and those only checks read.
struct CodeRoles {
  python::CodeRoleFacts facts;
  std::vector<std::string> abstract_transforms;
  std::vector<std::string> jax_compilers, tf_compilers, torch_compilers;
  std::vector<std::string> host_callbacks;
};

CodeRoles load() {
  CodeRoles roles;
  python::CodeRoleFacts& facts = roles.facts;
  const std::pair<std::string_view, std::vector<std::string>*> lists[] = {
      {"tracing_transform", &facts.tracing_transforms}, {"module_base", &facts.module_bases}, {"op_class_base", &facts.op_class_bases},
      {"dataset_base", &facts.dataset_bases},           {"hot_method", &facts.hot_methods},
      {"hot_function", &facts.hot_functions},           {"host_function", &facts.host_functions},
      {"host_class", &facts.host_classes},              {"host_keyword", &facts.host_keywords},
      {"host_path_part", &facts.host_path_parts},       {"one_time_function", &facts.one_time_functions},
      {"eval_function", &facts.eval_functions},         {"eval_class", &facts.eval_classes},
      {"test_function", &facts.test_functions},         {"test_path_part", &facts.test_path_parts},
      {"step_call", &facts.step_calls},                 {"step_receiver_exclusion", &facts.step_receiver_exclusions},
      {"gradient_step_call", &facts.gradient_step_calls},
      {"guard_name", &facts.guard_names},               {"guard_string", &facts.guard_strings},               {"build_script", &facts.build_scripts},
      {"backend_word", &facts.backend_words},           {"loader_class", &facts.loader_classes},
      {"eval_module_word", &facts.eval_module_words},   {"eval_path_part", &facts.eval_path_parts},
      {"eval_call", &facts.eval_calls},                 {"benchmark_path_part", &facts.benchmark_path_parts},
      {"optimizer_name", &facts.optimizer_names},       {"loss_name", &facts.loss_names},
      {"alternative_backend_dir", &facts.alternative_backend_dirs}, {"gpu_backend_word", &facts.gpu_backend_words}, {"entry_point_call", &facts.entry_point_calls},
      {"iterated_host_class", &facts.iterated_host_classes}, {"preparation_method", &facts.preparation_methods},
      {"loop_function", &facts.loop_functions},         {"hot_parameter", &facts.hot_parameters},
      {"hot_class", &facts.hot_classes},               {"optimizer_base", &facts.optimizer_bases},
      {"one_time_path_part", &facts.one_time_path_parts}, {"memoizing_decorator", &facts.memoizing_decorators},
      {"tpu_word", &facts.tpu_words},                   {"training_flag", &facts.training_flags},
      {"eval_mode_word", &facts.eval_mode_words},         {"gradient_transform", &facts.gradient_transforms},
      {"framework_release", &facts.framework_releases},
      {"abstract_transform", &roles.abstract_transforms}, {"jax_compiler", &roles.jax_compilers},
      {"tf_compiler", &roles.tf_compilers},             {"torch_compiler", &roles.torch_compilers},
      {"host_callback", &roles.host_callbacks},
  };
  for (const auto& row : data::kPythonCodeRoles) {
    const size_t space = row.entry.find(' ');
    const std::string_view fact = row.entry.substr(0, space), pattern = row.entry.substr(space + 1);
    bool known = false;
    for (const auto& [name, list] : lists)
      if (name == fact) {
        list->emplace_back(pattern);
        known = true;
      }
    if (!known || space == std::string_view::npos) throw std::logic_error("python_code_roles.tsv: bad entry " + std::string(row.entry));
  }
  return roles;
}

const CodeRoles& code_roles() {
  static const CodeRoles roles = load();
  return roles;
}

}  // namespace

const python::CodeRoleFacts& code_role_facts() { return code_roles().facts; }

namespace {

bool any_qualified(const std::vector<std::string>& entries, std::string_view qualified) {
  for (const std::string& entry : entries)
    if (python::matches_qualified(entry, qualified)) return true;
  return false;
}

bool any_name(const std::vector<std::string>& patterns, std::string_view name) {
  for (const std::string& pattern : patterns)
    if (python::matches_name_pattern(pattern, name)) return true;
  return false;
}

}  // namespace

bool is_test_module(std::string_view path) { return python::module_path_matches(path, code_role_facts().test_path_parts); }

bool is_test_function(std::string_view name) { return any_name(code_role_facts().test_functions, name); }

bool is_abstract_transform(std::string_view qualified) {
  return any_qualified(code_roles().abstract_transforms, qualified);
}

bool is_host_callback(std::string_view qualified) { return any_qualified(code_roles().host_callbacks, qualified); }

bool is_compiler(std::string_view framework, std::string_view qualified) {
  const CodeRoles& roles = code_roles();
  if (framework == "jax") return any_qualified(roles.jax_compilers, qualified);
  if (framework == "tf") return any_qualified(roles.tf_compilers, qualified);
  if (framework == "torch") return any_qualified(roles.torch_compilers, qualified);
  return false;
}

}  // namespace tpulint::checks
