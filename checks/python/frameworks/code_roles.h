// The framework facts of the Python semantic model, from checks/data/python_code_roles.tsv.
#pragma once

#include <string_view>

#include "python/semantic.h"

namespace tpulint::checks {

const python::CodeRoleFacts& code_role_facts();

// The JAX transforms that trace the function they get with abstract values, so that Python control
// flow on its arguments fails (`abstract_transform` rows): `jax.jit`, `jax.vmap`, `jax.lax.scan`;
// not `jax.grad`, which is a tracing transform of the hot path (CodeRoleFacts::tracing_transforms).
bool is_abstract_transform(std::string_view qualified);

// The JAX APIs that call a function on the host with concrete values from traced code
// (`host_callback` rows): `jax.debug.callback`, `jax.pure_callback`, `jax.experimental.io_callback`.
bool is_host_callback(std::string_view qualified);

// True when `qualified` compiles the function it gets into one device program run once per step,
// for `framework` ("jax", "tf", "torch": the `<framework>_compiler` rows): `jax.jit`, `tf.function`,
// `torch.compile`.
bool is_compiler(std::string_view framework, std::string_view qualified);

// Tests, as the semantic model tells them (Context::Test): a module one of whose directories, or
// whose file name with or without ".py", matches a `test_path_part` row (`tests/`, `test_*.py`,
// `conftest.py`); a function or class whose name matches a `test_function` row (`test_*`, `Test*`).
bool is_test_module(std::string_view path);
bool is_test_function(std::string_view name);

}  // namespace tpulint::checks
