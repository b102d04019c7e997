#include "cxx/compile_database.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace tpulint::cxx {

namespace {

// Options kept with their value, which is joined (`-DX`) or the next argument (`-D X`).
constexpr auto kKeptWithValue = std::to_array<std::string_view>({
    "-D", "-U", "-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros"});

// Options kept as written, a value joined after '='.
constexpr auto kKeptWithEquals = std::to_array<std::string_view>({
    "-std=", "--std=", "--cuda-gpu-arch=", "--offload-arch=", "-march=", "-mtune=", "-mcpu="});

// Options kept as written, with no value.
constexpr auto kKeptAlone = std::to_array<std::string_view>({"-w",           "-nostdinc", "-nostdinc++", "-nostdlibinc",
                                                        "-nobuiltininc", "-ansi",     "-pthread",    "-undef"});

// Language switches (`-f...`) that change how code parses or which macros are defined.
constexpr auto kKeptLanguageSwitches = std::to_array<std::string_view>({
    "-fexceptions", "-fno-exceptions", "-fcxx-exceptions", "-fno-cxx-exceptions", "-frtti", "-fno-rtti",
    "-fopenmp", "-fno-openmp", "-fms-extensions", "-fno-ms-extensions", "-fms-compatibility",
    "-fno-ms-compatibility", "-fdeclspec", "-fno-declspec", "-fsigned-char", "-funsigned-char",
    "-fno-signed-char", "-fno-unsigned-char", "-fchar8_t", "-fno-char8_t", "-fgnu-keywords", "-fno-gnu-keywords",
    "-fgnu89-inline", "-fno-gnu89-inline", "-fshort-wchar", "-fno-short-wchar", "-fdelayed-template-parsing",
    "-fno-delayed-template-parsing", "-fno-operator-names", "-fcoroutines", "-fcoroutines-ts", "-fpermissive",
    "-fgpu-rdc", "-fno-gpu-rdc", "-fcuda-rdc", "-fno-cuda-rdc", "-fPIC", "-fpic", "-fPIE", "-fpie", "-fno-pic",
    "-fno-pie", "-ffast-math", "-fno-fast-math", "-ffreestanding", "-fno-builtin"});
constexpr auto kKeptLanguageSwitchPrefixes = std::to_array<std::string_view>({"-fopenmp=", "-fms-compatibility-version=",
                                                                          "-fgnuc-version="});

// Options left out whose value is the next argument: it must be left out with them (a value
// such as `-dependency-file` after `-Xclang` would otherwise be read as an option).
constexpr auto kDroppedWithNextArgument = std::to_array<std::string_view>({
    "-o", "-MF", "-MT", "-MQ", "-Xclang", "-mllvm", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xanalyzer",
    "-Xopenmp-target", "-Xcuda-ptxas", "-Xcuda-fatbinary", "-Xarch_host", "-Xarch_device", "-arch",
    "-include-pch", "-ivfsoverlay", "-working-directory", "-dependency-file", "-serialize-diagnostic-file",
    "--serialize-diagnostics", "-diagnostic-log-file", "-header-include-file", "-main-file-name", "-z", "-L",
    "-u", "-T", "-rpath", "-install_name", "-framework", "-iframework", "-F", "-B", "--config", "--cuda-path",
    "--output",
    // nvcc
    "-Xcompiler", "-Xptxas", "-Xnvlink", "-Xfatbin", "-Xarchive", "-gencode", "-ccbin", "--compiler-bindir"});
constexpr auto kNvccDroppedWithNextArgument = std::to_array<std::string_view>({
    "-code", "--generate-code", "-maxrregcount", "--default-stream", "--threads", "--options-file"});

template <size_t N>
bool one_of(std::string_view a, const std::array<std::string_view, N>& list) {
  return std::find(list.begin(), list.end(), a) != list.end();
}

template <size_t N>
bool starts_with_one_of(std::string_view a, const std::array<std::string_view, N>& list) {
  return std::any_of(list.begin(), list.end(), [&](std::string_view p) { return a.starts_with(p); });
}

bool all_of_chars(std::string_view s, std::string_view allowed_punctuation) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           allowed_punctuation.find(c) != std::string_view::npos;
  });
}

// `-O`, `-O0` to `-O3`, `-Os`, `-Oz`, `-Og`, `-Ofast`: they define __OPTIMIZE__ and friends.
bool optimization_level(std::string_view a) {
  return a == "-O" || a == "-Ofast" ||
         (a.size() == 3 && a.starts_with("-O") && std::string_view("0123sgz").find(a[2]) != std::string_view::npos);
}

// `-Wall`, `-Wno-foo`, `-Werror=bar`; never `-Wl,`, `-Wa,` or `-Wp,` (pass-throughs to the
// linker, assembler and preprocessor: `-Wp,-MD,FILE` writes FILE) or `-Wfatal-errors`.
bool warning_option(std::string_view a) {
  return a.size() > 2 && a.starts_with("-W") && a.find(',') == std::string_view::npos && a != "-Wfatal-errors" &&
         all_of_chars(a.substr(2), "-_=+.");
}

// `-mavx2`, `-m64`, `-mno-sse`, `-mfpu=neon`: target features, which define macros. Never
// `-mllvm` (a pass-through to LLVM) or anything naming a path.
bool machine_option(std::string_view a) {
  return a.size() > 2 && a.starts_with("-m") && !a.starts_with("-mllvm") && all_of_chars(a.substr(2), "-_=.");
}

// The language Clang is told for `-x`, when it is one tpulint parses ("cu" is nvcc's "cuda").
std::optional<std::string> parse_language(std::string_view x) {
  if (x == "cu") return "cuda";
  for (std::string_view known : {"c", "c++", "cuda", "c-header", "c++-header"})
    if (x == known) return std::string(x);
  return std::nullopt;
}

std::string absolute_normal(const std::string& path, const std::string& directory) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(directory) / p;
  return p.lexically_normal().string();
}

size_t common_components(const fs::path& a, const fs::path& b) {
  size_t n = 0;
  for (auto x = a.begin(), y = b.begin(); x != a.end() && y != b.end() && *x == *y; ++x, ++y) ++n;
  return n;
}

}  // namespace

std::vector<std::string> split_command_line(std::string_view command) {
  std::vector<std::string> out;
  std::string current;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) out.push_back(std::move(current));
      current.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < command.size()) {
      current += command[++i];
    } else if (c == '\'') {
      size_t close = command.find('\'', i + 1);
      if (close == std::string_view::npos) close = command.size();
      current.append(command.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      for (++i; i < command.size() && command[i] != '"'; ++i) {
        if (command[i] == '\\' && i + 1 < command.size() && (command[i + 1] == '"' || command[i + 1] == '\\')) ++i;
        current += command[i];
      }
    } else {
      current += c;
    }
  }
  if (in_word) out.push_back(std::move(current));
  return out;
}

std::vector<std::string> allowed_arguments(std::span<const std::string> arguments, Language language,
                                           DatabaseOrigin origin) {
  std::vector<std::string> out;
  std::optional<std::string> x;  // the language the command says, if tpulint parses it
  for (size_t i = 1; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    const bool has_next = i + 1 < arguments.size();
    // Inputs (this file, other files: never parsed), response files, and everything after "--".
    if (a.empty() || a[0] != '-' || a == "-") continue;
    if (a == "--") break;
    if (a == "-x" || a.starts_with("-x")) {
      std::string_view value = a == "-x" ? (has_next ? std::string_view(arguments[++i]) : "") : std::string_view(a).substr(2);
      if (auto l = parse_language(value)) x = *l;
      continue;
    }
    // The target names the directories the driver looks for a toolchain in: a triple only.
    if (a == "-target" || a.starts_with("--target=")) {
      std::string_view triple = a == "-target" ? (has_next ? std::string_view(arguments[++i]) : "") : std::string_view(a).substr(9);
      if (!triple.empty() && all_of_chars(triple, "-_.") && triple.find("..") == std::string_view::npos)
        out.push_back("--target=" + std::string(triple));
      continue;
    }
    // A sysroot is where every system header is read from: only the user's own database may move it.
    if (a == "-isysroot" || a == "--sysroot" || a.starts_with("--sysroot=") || a.starts_with("-isysroot")) {
      std::string value = a == "-isysroot" || a == "--sysroot" ? (has_next ? arguments[++i] : "")
                                                               : a.substr(a.starts_with("--sysroot=") ? 10 : 9);
      if (origin == DatabaseOrigin::User && !value.empty()) out.push_back("--sysroot=" + value);
      continue;
    }
    if (one_of(a, kKeptWithValue)) {
      if (has_next) out.insert(out.end(), {a, arguments[++i]});
      continue;
    }
    if (one_of(a, kDroppedWithNextArgument) || one_of(a, kNvccDroppedWithNextArgument) || a.starts_with("-Xarch_")) {
      ++i;
      continue;
    }
    // -D, -U and -I joined with their value; -isystem... joined too (rare, but valid).
    if (a.size() > 2 && (a.starts_with("-D") || a.starts_with("-U") || a.starts_with("-I"))) {
      out.push_back(a);
      continue;
    }
    if (starts_with_one_of(a, kKeptWithEquals) || one_of(a, kKeptAlone) || one_of(a, kKeptLanguageSwitches) ||
        starts_with_one_of(a, kKeptLanguageSwitchPrefixes) || optimization_level(a) || warning_option(a) ||
        machine_option(a))
      out.push_back(a);
    // Anything else is left out, and a separate value of it is an input: left out too.
  }
  if (language == Language::Cuda) x = "cuda";
  if (x) out.insert(out.begin(), {"-x", *x});
  return out;
}

std::vector<fs::path> include_directories(std::span<const std::string> arguments, const fs::path& directory) {
  std::vector<fs::path> out;
  auto add = [&](std::string_view dir) { out.push_back((directory / dir).lexically_normal()); };
  for (size_t i = 0; i < arguments.size(); ++i) {
    std::string_view a = arguments[i];
    if ((a == "-I" || a == "-isystem" || a == "-iquote" || a == "-idirafter") && i + 1 < arguments.size())
      add(arguments[++i]);
    else if (a.size() > 2 && a.starts_with("-I"))
      add(a.substr(2));
  }
  return out;
}

CompileDatabase CompileDatabase::parse(std::string_view text, const fs::path& dir, DatabaseOrigin origin) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw CompileDatabaseError("not valid JSON");
  if (!doc.is_array()) throw CompileDatabaseError("not a JSON array of compile commands");
  CompileDatabase db;
  db.origin_ = origin;
  const std::string base = fs::path(dir).lexically_normal().string();
  for (size_t k = 0; k < doc.size(); ++k) {
    const nlohmann::json& e = doc[k];
    auto fail = [&](std::string_view what) {
      throw CompileDatabaseError("entry " + std::to_string(k + 1) + ": " + std::string(what));
    };
    if (!e.is_object()) fail("not an object");
    if (!e.contains("file") || !e["file"].is_string()) fail("no \"file\" string");
    if (!e.contains("directory") || !e["directory"].is_string()) fail("no \"directory\" string");
    Entry entry;
    entry.directory = absolute_normal(e["directory"].get<std::string>(), base);
    entry.file = absolute_normal(e["file"].get<std::string>(), entry.directory);
    if (e.contains("arguments")) {
      if (!e["arguments"].is_array()) fail("\"arguments\" is not an array");
      for (const nlohmann::json& a : e["arguments"]) {
        if (!a.is_string()) fail("an argument is not a string");
        entry.arguments.push_back(a.get<std::string>());
      }
    } else if (e.contains("command") && e["command"].is_string()) {
      entry.arguments = split_command_line(e["command"].get<std::string>());
    } else {
      fail("no \"arguments\" array or \"command\" string");
    }
    if (entry.arguments.empty()) fail("an empty command");
    db.entries_.push_back(std::move(entry));
  }
  // The first entry of a file is its command, as in Clang's reading.
  std::stable_sort(db.entries_.begin(), db.entries_.end(), [](const Entry& a, const Entry& b) { return a.file < b.file; });
  return db;
}

std::optional<CompileCommand> CompileDatabase::command_for(const fs::path& file, Language language) const {
  const std::string key = file.lexically_normal().string();
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, const std::string& k) { return e.file < k; });
  const Entry* chosen = it != entries_.end() && it->file == key ? &*it : nullptr;
  if (!chosen) {
    // The listed file sharing the most leading directories, a CUDA one for a CUDA file; the
    // first by path among equals.
    size_t best = 0;
    bool best_same_kind = false;
    for (const Entry& e : entries_) {
      size_t shared = common_components(fs::path(e.file).parent_path(), file.parent_path());
      bool same_kind = (fs::path(e.file).extension() == ".cu") == (language == Language::Cuda);
      if (!chosen || shared > best || (shared == best && same_kind && !best_same_kind)) {
        chosen = &e;
        best = shared;
        best_same_kind = same_kind;
      }
    }
  }
  if (!chosen) return std::nullopt;
  CompileCommand out;
  out.directory = chosen->directory;
  out.arguments = allowed_arguments(chosen->arguments, language, origin_);
  // A header parsed with a source file's flags is parsed in that source's language.
  if (language != Language::Cuda && is_header_extension(file.extension().string()) &&
      std::find(out.arguments.begin(), out.arguments.end(), "-x") == out.arguments.end())
    out.arguments.insert(out.arguments.begin(), {"-x", fs::path(chosen->file).extension() == ".c" ? "c" : "c++"});
  return out;
}

bool is_header_extension(std::string_view ext) {
  for (std::string_view h : {".h", ".hh", ".hpp", ".hxx", ".inl", ".cuh", ".ipp", ".tcc"})
    if (ext == h) return true;
  return false;
}

}  // namespace tpulint::cxx
