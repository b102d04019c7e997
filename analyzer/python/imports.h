// Import and alias resolution, so that checks match qualified names whatever the spelling:
// `import torch as T; T.nonzero`, `from torch import nonzero as nz; nz`, `import jax.numpy as
// jnp`, relative imports (resolved against the file's package path) and star imports.
//
// Scopes are modules and function bodies: an import inside a function binds its name there
// only. Bindings are flow-insensitive within a scope (a name imported anywhere in a function
// is bound in all of it); when one scope binds a name twice, the later import wins.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/string_map.h"
#include "python/syntax.h"

namespace tpulint::python {

// A scope is named by the start byte of its function_definition; the module is kModuleScope.
inline constexpr uint32_t kModuleScope = UINT32_MAX;

struct ImportBinding {
  std::string local;   // the name bound: "F", "torch", "nz"
  std::string target;  // what it names, fully qualified: "torch.nn.functional", "torch.nonzero"
  Node statement;      // the import statement
  bool guarded = false;  // inside `try:` with a handler for ImportError (an optional dependency)
};

// True if an except clause catches a failed import: bare, or naming ImportError,
// ModuleNotFoundError, Exception or BaseException.
bool catches_import_error(Node except_clause);
// True if an except clause's block ends with `raise`: what it caught still fails.
bool reraises(Node except_clause);

// The dotted package a file belongs to, from its path relative to the scan root:
// "pkg/models/net.py" -> "pkg.models" (also for pkg/models/__init__.py).
std::string package_of(std::string_view relative_path);

// The modules an import statement names, fully qualified: `import a.b, c` -> {"a.b", "c"};
// `from .m import x` in package "p" -> {"p.m"}; `from __future__ import x` -> {}.
std::vector<std::string> imported_modules(Node import_statement, std::string_view package);

class ImportTable {
 public:
  // Collects every import of the trees (a file's parse, plus the pieces re-parsed after a
  // syntax error) in one walk over their statements (expressions are not entered, so this
  // costs little next to the parse).
  static ImportTable build(std::span<const Tree* const> trees, std::string_view package);
  static ImportTable build(const Tree& tree, std::string_view package) {
    const Tree* one = &tree;
    return build(std::span(&one, 1), package);
  }

  // What `name` refers to in the innermost-first chain of scopes, or nullopt if it is not an
  // imported name. An unbound name resolves through the scope's star imports, the last first.
  std::optional<std::string> resolve(std::string_view name, std::span<const uint32_t> scopes) const;

  // False when no scope can resolve `name`: no import binds it and the file has no star import.
  // Most identifiers are locals, so this one lookup spares finding the scopes around them.
  bool may_resolve(std::string_view name) const { return has_star_import_ || binds(name); }
  // True if an import statement, in any scope, binds `name`.
  bool binds(std::string_view name) const {
    // Most names asked about are locals: a length or a first byte that no bound name has
    // rejects them without hashing.
    if (name.empty() || !(bound_lengths_ >> length_bit(name) & 1) ||
        !(bound_first_bytes_[uint8_t(name[0]) >> 6] >> (uint8_t(name[0]) & 63) & 1))
      return false;
    return bound_names_.contains(name);
  }

  // True if any import in the file names `module` or a submodule of it ("torch" matches
  // `import torch.nn` and `from torch import nn`).
  bool imports(std::string_view module) const;

  const std::vector<ImportBinding>& bindings() const { return bindings_; }

  // True if the import statement sits in a `try:` whose handlers catch a failed import: an
  // optional dependency, which the code can run without.
  bool is_guarded(Node import_statement) const;

  // Every module or name an import statement names, fully qualified, with the statement's start
  // byte, in the order of the walk: `from .m import f` in "p" gives "p.m" and "p.m.f".
  struct Imported {
    uint32_t at;
    std::string name;
  };
  const std::vector<Imported>& imported() const { return imported_; }

 private:
  struct Scope {
    StringMap<size_t> names;                // local name -> index in bindings_
    std::vector<std::string> star_modules;  // in source order
  };
  std::vector<ImportBinding> bindings_;
  // Every module named by an import statement, sorted and unique: imports() looks for the module
  // and for the first name after "module.". (A set of every dotted prefix of every name would make
  // it one lookup, but an import of a name with many dots would then take its length squared.)
  std::vector<std::string> modules_;
  std::vector<Imported> imported_;
  StringSet bound_names_;  // every local name an import binds, in any scope
  // The lengths (63: longer) and first bytes of bound_names_, as bit sets.
  static unsigned length_bit(std::string_view name) { return name.size() < 63 ? unsigned(name.size()) : 63u; }
  uint64_t bound_lengths_ = 0;
  uint64_t bound_first_bytes_[4] = {};
  bool has_star_import_ = false;
  std::vector<uint32_t> guarded_statements_;  // start bytes of guarded import statements, sorted
  std::unordered_map<uint32_t, Scope> scopes_;
};

}  // namespace tpulint::python
