// libFuzzer target: a compile_commands.json as a scanned tree could hold it. Parsing never
// crashes (a bad database is a CompileDatabaseError), and what Clang would be given is always
// within the allow-list: cutting it down again changes nothing, and no response file, output or
// pass-through survives.
#include <cstdlib>
#include <string>
#include <string_view>

#include "cxx/compile_database.h"

namespace {

using namespace tpulint;
using namespace tpulint::cxx;

void check_allowed(const std::vector<std::string>& kept, Language language, DatabaseOrigin origin) {
  std::vector<std::string> again = {"cc"};
  again.insert(again.end(), kept.begin(), kept.end());
  if (allowed_arguments(again, language, origin) != kept) std::abort();  // the allow-list is a fixed point
  for (size_t i = 0; i < kept.size(); ++i) {
    std::string_view a = kept[i];
    const bool value_of_previous =
        i > 0 && (kept[i - 1] == "-D" || kept[i - 1] == "-U" || kept[i - 1] == "-I" || kept[i - 1] == "-isystem" ||
                  kept[i - 1] == "-iquote" || kept[i - 1] == "-idirafter" || kept[i - 1] == "-include" ||
                  kept[i - 1] == "-imacros" || kept[i - 1] == "-x");
    if (value_of_previous) continue;
    if (a.empty() || a[0] != '-') std::abort();  // an input or a response file
    for (std::string_view never : {"-o", "-M", "-X", "-mllvm", "-Wp,", "-Wl,", "-Wa,", "-fplugin", "-fmodules",
                                   "-B", "--config", "-save-temps", "-fcrash", "-fprofile", "--sysroot"})
      if (a.starts_with(never) && !(never == "--sysroot" && origin == DatabaseOrigin::User)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // As a database: entries, and the commands made from them.
  for (DatabaseOrigin origin : {DatabaseOrigin::Tree, DatabaseOrigin::User}) {
    try {
      CompileDatabase db = CompileDatabase::parse(text, "/p/build", origin);
      for (const char* file : {"/p/src/a.cpp", "/p/src/k.cu", "/p/include/h.h", "/elsewhere/x.c"})
        for (Language language : {Language::Cxx, Language::Cuda})
          if (auto command = db.command_for(file, language)) check_allowed(command->arguments, language, origin);
    } catch (const CompileDatabaseError&) {
    }
  }
  // As a command line.
  std::vector<std::string> arguments = split_command_line(text);
  if (!arguments.empty())
    for (DatabaseOrigin origin : {DatabaseOrigin::Tree, DatabaseOrigin::User})
      check_allowed(allowed_arguments(arguments, Language::Cxx, origin), Language::Cxx, origin);
  return 0;
}
