// Helpers of the C/C++ frontend's tests: every fact of a parse as one comparable text, and a
// source file of a test tree.
#pragma once

#include <filesystem>
#include <sstream>
#include <string>

#include "core/source_file.h"
#include "cxx/clang_frontend.h"
#include "cxx/native_facts.h"

namespace tpulint::testing {

// Every fact of a parse, in one comparable text (error_count apart: a header parsed with others
// counts the errors written in it).
inline std::string facts_text(const cxx::NativeFile& f) {
  using namespace cxx;
  std::ostringstream o;
  for (const FunctionFact& fn : f.functions)
    o << "fn " << fn.qualified_name << ' ' << fn.span.begin << '-' << fn.span.end << ' ' << fn.is_kernel << fn.is_device
      << fn.is_host << fn.is_template << fn.lexical << ' ' << fn.lines << ' ' << fn.runtime_compiled << '\n';
  for (const LaunchFact& l : f.launches) o << "launch " << l.kernel << ' ' << l.span.begin << '-' << l.span.end << '\n';
  for (const AsmFact& a : f.asm_statements) o << "asm " << a.span.begin << ' ' << a.function << a.in_device_code << '\n';
  for (const CallFact& c : f.calls)
    o << "call " << c.callee << ' ' << c.span.begin << ' ' << c.function << ' ' << c.first_argument << ' ' << c.in_macro_body << '\n';
  for (const IncludeFact& i : f.includes)
    o << "include " << i.spelled << ' ' << i.found << ' ' << i.span.begin << ' ' << i.inactive << ' ' << i.resolved << '\n';
  for (const MacroUseFact& m : f.macro_uses) o << "macro " << m.name << ' ' << m.span.begin << '\n';
  for (const QualifiedNameFact& q : f.qualified_names) o << "name " << q.name << ' ' << q.span.begin << ' ' << q.inactive << '\n';
  for (const NameUseFact& n : f.names)
    for (const NameUseFact::Use& u : n.uses) o << "use " << n.name << ' ' << u.offset << ' ' << u.inactive << '\n';
  for (const std::string& t : f.instantiated_templates) o << "instantiates " << t << '\n';
  o << "language " << int(f.language) << " fatal " << f.fatal_error << " over budget " << f.over_budget << '\n';
  return o.str();
}

// Options under which every C/C++ file is parsed: a file with no device code would otherwise be
// read in its tokens (ClangFrontendOptions::read_host_files_in_tokens, cxx_host_files_test.cpp),
// and the tests of the parse's facts and mechanics need the parse.
inline cxx::ClangFrontendOptions parse_all() {
  cxx::ClangFrontendOptions options;
  options.read_host_files_in_tokens = false;
  return options;
}

// A header Clang takes longer than a 1 ms budget to parse: a file including it is stopped at such a
// budget when it is parsed, never when it is read in its tokens.
inline std::string slow_header() {
  std::string text = "#pragma once\n";
  for (int i = 0; i < 20000; ++i) text += "struct S" + std::to_string(i) + " { int a, b; S" + std::to_string(i) + "* next; };\n";
  return text;
}

// A file of a test tree, at `rel` beneath `root`: CUDA by its extension, else C++.
inline SourceFile source(const std::filesystem::path& root, const std::string& rel, std::string text) {
  Language language = rel.ends_with(".cu") || rel.ends_with(".cuh") ? Language::Cuda : Language::Cxx;
  return SourceFile(rel, root / rel, language, std::move(text));
}

}  // namespace tpulint::testing
