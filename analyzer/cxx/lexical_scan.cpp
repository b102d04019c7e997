#include "cxx/lexical_scan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <unordered_map>

namespace tpulint::cxx {

namespace {

constexpr size_t kArgumentScanLimit = 64;    // tokens read for a call's first argument
constexpr size_t kMacroArgumentTextLimit = 200;

bool is_open(std::string_view s) { return s == "(" || s == "[" || s == "{"; }
bool is_close(std::string_view s) { return s == ")" || s == "]" || s == "}"; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// `ns::inner::name` ending at token `last`; returns the index of its first component.
size_t chain_start(const LexicalFile& f, size_t last) {
  size_t first = last;
  while (first >= 2 && f.is(first - 1, "::") && f.identifier(first - 2)) first -= 2;
  return first;
}

std::string chain_text(const LexicalFile& f, size_t first, size_t last) {
  std::string name;
  for (size_t i = first; i <= last; i += 2) {
    if (!name.empty()) name += "::";
    name += f.tokens()[i].text;
  }
  return name;
}

// The top-level arguments of the call whose '(' is at `open`, as [first, last] token ranges.
std::vector<std::pair<size_t, size_t>> arguments(const LexicalFile& f, size_t open, size_t max_count,
                                                 size_t scan_limit) {
  std::vector<std::pair<size_t, size_t>> out;
  const auto& t = f.tokens();
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < t.size() && i - open <= scan_limit; ++i) {
    std::string_view s = t[i].kind == LexToken::Punct ? t[i].text : std::string_view();
    if (is_open(s)) ++depth;
    bool end_all = depth == 0 && s == ")";
    if (is_close(s) && !end_all) --depth;
    if (depth == 0 && (s == "," || end_all)) {
      if (i > start) out.emplace_back(start, i - 1);
      if (end_all || out.size() >= max_count) break;
      start = i + 1;
    }
  }
  return out;
}

std::string_view range_text(const LexicalFile& f, size_t first, size_t last) {
  uint32_t b = f.tokens()[first].offset;
  return f.text().substr(b, f.end_of(last) - b);
}

// What a first argument names: `(void*)kernel` and `&kernel` name `kernel`; otherwise its text.
std::string argument_name(const LexicalFile& f, size_t first, size_t last) {
  if (f.is(first, "(")) {
    size_t close = f.closing(first);
    if (close < last) first = close + 1;
  }
  if (f.is(first, "&") && first < last) ++first;
  if (f.identifier(first)) {
    size_t end = first;
    while (end + 2 <= last && f.is(end + 1, "::") && f.identifier(end + 2)) end += 2;
    if (end == last || f.is(end + 1, "<")) return chain_text(f, first, end);
  }
  return std::string(trim(range_text(f, first, last)));
}

constexpr size_t kNoName = size_t(-1);

// The name written before token `last` + 1: `last` itself when it is an identifier, or the
// identifier before a template argument list ending at `last` (`kernel<T, 4>`); else kNoName.
size_t template_name(const LexicalFile& f, size_t last) {
  if (!f.is(last, ">") && !f.is(last, ">>")) return f.identifier(last) ? last : kNoName;
  int depth = 0;
  size_t j = last;
  for (;; --j) {
    if (f.is(j, ">")) depth += 1;
    if (f.is(j, ">>")) depth += 2;
    if (f.is(j, "<")) depth -= 1;
    if (depth <= 0 || j == 0) break;
  }
  if (depth != 0 || j == 0 || !f.identifier(j - 1)) return kNoName;
  return j - 1;
}

bool upper_case_name(std::string_view s) {
  if (s.size() < 3 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  bool letter = false;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') letter = true;
    else if (!(c == '_' || (c >= '0' && c <= '9'))) return false;
  }
  return letter;
}

// Words followed by '(' that are not calls.
bool call_like_keyword(std::string_view s) {
  static constexpr std::array<std::string_view, 26> kWords = {
      "__asm__",     "__attribute__", "__declspec", "__launch_bounds__", "__volatile__", "alignas",
      "alignof",     "asm",           "catch",      "decltype",          "defined",      "delete",
      "for",         "if",            "new",        "noexcept",          "operator",     "return",
      "sizeof",      "static_assert", "switch",     "template",          "throw",        "typeid",
      "volatile",    "while"};
  return std::find(kWords.begin(), kWords.end(), s) != kWords.end();
}

// Words after which `name(` is still a call rather than a declaration of `name`.
bool statement_keyword(std::string_view s) {
  return s == "return" || s == "else" || s == "do" || s == "case" || s == "throw" || s == "co_return" ||
         s == "co_await" || s == "co_yield";
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

void count_token(const LexToken& t, DeviceCodeMetrics& m) {
  if (t.kind == LexToken::String) {
    if (t.text.find("mma.") != std::string_view::npos || t.text.find("wgmma") != std::string_view::npos ||
        t.text.find("ldmatrix") != std::string_view::npos)
      ++m.tensor_core;
    return;
  }
  if (t.kind != LexToken::Identifier) return;
  std::string_view s = t.text;
  if (s == "__shared__") {
    ++m.shared_memory;
  } else if (starts_with(s, "__shfl") || starts_with(s, "__ballot") || s == "__any_sync" || s == "__all_sync" ||
             s == "__uni_sync" || s == "__syncwarp" || s == "__activemask" || starts_with(s, "__match_") ||
             (starts_with(s, "__reduce_") && ends_with(s, "_sync"))) {
    ++m.warp_intrinsics;
  } else if (starts_with(s, "atomic") && s.size() > 6 && std::isupper(static_cast<unsigned char>(s[6]))) {
    ++m.atomics;
  } else if (s == "wmma" || s == "mma_sync" || s == "load_matrix_sync" || s == "store_matrix_sync" ||
             starts_with(s, "__hmma") || starts_with(s, "__imma")) {
    ++m.tensor_core;
  } else if (s == "cooperative_groups" || s == "this_grid" || s == "this_thread_block" || s == "tiled_partition" ||
             s == "coalesced_threads" || s == "grid_group" || s == "thread_block_tile" || s == "this_multi_grid") {
    ++m.cooperative_groups;
  }
}

bool is_assignment(std::string_view s) {
  static constexpr std::array<std::string_view, 11> kOperators = {"=",  "+=", "-=", "*=",  "/=", "%=",
                                                                  "&=", "|=", "^=", "<<=", ">>="};
  return std::find(kOperators.begin(), kOperators.end(), s) != kOperators.end();
}

bool mentions_grid(const LexicalFile& f, size_t begin, size_t end, const std::vector<std::string_view>& strides) {
  for (size_t i = begin; i < end; ++i) {
    std::string_view s = f.tokens()[i].text;
    if (s == "gridDim" || s == "blockDim" || std::find(strides.begin(), strides.end(), s) != strides.end()) return true;
  }
  return false;
}

// `KernelLoopX`, `kernel_loop`, `CUDA_KERNEL_LOOP`: a name that says it loops over the grid.
bool grid_loop_name(std::string_view s) {
  std::string folded;
  for (char c : s)
    if (c != '_') folded += char(std::tolower(static_cast<unsigned char>(c)));
  return folded.find("kernelloop") != std::string::npos || folded.find("gridstride") != std::string::npos;
}

// A name that holds a compile-time constant by convention: `N_DIMS`, `VEC`, `kVecSize`.
bool constant_name(std::string_view s) {
  if (s.size() >= 2 && s[0] == 'k' && std::isupper(static_cast<unsigned char>(s[1]))) return true;
  bool upper = false;
  for (char c : s) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    upper = upper || std::isupper(static_cast<unsigned char>(c));
  }
  return upper;
}

// The `for` at `at` is under `#pragma unroll`: the directive tokens just before it.
bool unrolled(const LexicalFile& f, size_t begin, size_t at) {
  for (size_t j = at; j-- > begin && f.tokens()[j].in_directive;)
    if (f.tokens()[j].text == "unroll") return true;
  return false;
}

// The for-loop condition [begin, end) compares with a constant: `i < 4`, `j < kVec * 2`,
// `k <= N_DIMS`, `i < sizeof(T)`.
bool constant_bound(const LexicalFile& f, size_t begin, size_t end) {
  const auto& t = f.tokens();
  size_t cmp = end;
  for (size_t j = begin; j < end; ++j)
    if (f.is(j, "<") || f.is(j, "<=") || f.is(j, "!=")) {
      cmp = j;
      break;
    }
  if (cmp + 1 >= end) return false;
  for (size_t j = cmp + 1; j < end; ++j) {
    std::string_view s = t[j].text;
    if (t[j].kind == LexToken::Number) continue;
    if (t[j].kind == LexToken::Identifier && (constant_name(s) || s == "sizeof")) continue;
    if (t[j].kind == LexToken::Punct && (s == "*" || s == "+" || s == "-" || s == "/" || s == "(" || s == ")"))
      continue;
    return false;
  }
  return true;
}

// The shape of the function whose tokens are [begin, end). A grid-stride loop steps by the grid
// or block size, directly or through a variable set from it (`int stride = blockDim.x *
// gridDim.x;`); the CUDA_1D_KERNEL_LOOP-style macros of PyTorch, Caffe2 and mmcv are such loops.
BodyShape body_shape(const LexicalFile& f, size_t begin, size_t end) {
  const auto& t = f.tokens();
  BodyShape shape;
  std::vector<std::string_view> strides;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (t[i].kind != LexToken::Identifier || !f.is(i + 1, "=")) continue;
    size_t stop = i + 2;
    while (stop < end && !f.is(stop, ";")) ++stop;
    if (mentions_grid(f, i + 2, stop, {})) strides.push_back(t[i].text);
  }
  size_t header_end = begin;  // one past the ')' of the last for-loop header seen
  std::vector<size_t> braces;   // the open '{'
  size_t last_block = end;      // the '{' of the block closed last
  for (size_t i = begin; i < end; ++i) {
    if (t[i].in_directive) continue;
    std::string_view s = t[i].text;
    if (i >= header_end && t[i].kind == LexToken::Punct) {
      if (s == ";") ++shape.statements;
      if (is_assignment(s)) ++shape.assignments;
    }
    if (s == "{") braces.push_back(i);
    if (s == "}" && !braces.empty()) {
      last_block = braces.back();
      braces.pop_back();
    }
    if (t[i].kind != LexToken::Identifier) continue;
    if (s == "asm" || s == "__asm__" || s == "__asm") ++shape.inline_assembly;
    if ((f.is(i - 1, ".") || f.is(i - 1, "->")) && f.is(i + 1, "(") &&
        (s == "insert" || s == "find" || s == "lookup" || s == "emplace" || s == "push" || s == "push_back" ||
         s == "pop" || s == "erase"))
      ++shape.container_calls;
    if ((s == "cub" || s == "cutlass" || s == "cute" || s == "nvcuda") && f.is(i + 1, "::")) ++shape.library_templates;
    if (s == "while") {
      // `do { } while (c);` is one loop, counted at its `do`.
      bool ends_do = f.is(i - 1, "}") && last_block > begin && last_block < end && f.is(last_block - 1, "do");
      if (!ends_do) ++shape.loops;
    } else if (s == "do") {
      ++shape.loops;
    } else if (s == "for" && f.is(i + 1, "(")) {
      ++shape.loops;
      size_t close = std::min(f.closing(i + 1), end);
      header_end = std::max(header_end, close + 1);
      // The third clause: after the second ';' at the header's own depth.
      size_t semis = 0, step = close;
      int depth = 0;
      for (size_t j = i + 2; j < close; ++j) {
        if (t[j].kind == LexToken::Punct && is_open(t[j].text)) ++depth;
        if (t[j].kind == LexToken::Punct && is_close(t[j].text)) --depth;
        if (depth == 0 && f.is(j, ";") && ++semis == 2) {
          step = j + 1;
          break;
        }
      }
      bool grid_stride = false;
      for (size_t j = step; j + 1 < close; ++j)
        if (f.is(j, "+=") && mentions_grid(f, j + 1, close, strides)) {
          grid_stride = true;
          break;
        }
      // A range-for over a grid-stride iterator: spconv's `for (int i : tv::KernelLoopX<int>(n))`.
      if (semis == 0)
        for (size_t j = i + 2; j < close; ++j)
          if (t[j].kind == LexToken::Identifier && grid_loop_name(t[j].text)) grid_stride = true;
      if (grid_stride)
        ++shape.grid_stride_loops;
      else if (unrolled(f, begin, i) || (semis == 2 && constant_bound(f, i + 2, step - 1)))
        ++shape.fixed_loops;
    } else if (s.find("KERNEL_LOOP") != std::string_view::npos && f.is(i + 1, "(")) {
      ++shape.loops;
      ++shape.grid_stride_loops;
    }
  }
  return shape;
}

}  // namespace

LexicalFile::LexicalFile(std::string_view text, std::vector<LexToken> tokens, std::vector<ByteSpan> inactive)
    : text_(text), tokens_(std::move(tokens)), inactive_(std::move(inactive)) {
  std::sort(inactive_.begin(), inactive_.end(), [](ByteSpan a, ByteSpan b) { return a.begin < b.begin; });
}

bool LexicalFile::inactive(uint32_t offset) const {
  auto it = std::upper_bound(inactive_.begin(), inactive_.end(), offset,
                             [](uint32_t at, ByteSpan r) { return at < r.begin; });
  return it != inactive_.begin() && offset < std::prev(it)->end;
}

size_t LexicalFile::closing(size_t open) const {
  int depth = 0;
  for (size_t i = open; i < tokens_.size(); ++i) {
    if (tokens_[i].kind != LexToken::Punct) continue;
    if (is_open(tokens_[i].text)) ++depth;
    else if (is_close(tokens_[i].text) && --depth == 0) return i;
  }
  return tokens_.size();
}

size_t LexicalFile::index_at(uint32_t offset) const {
  return size_t(std::lower_bound(tokens_.begin(), tokens_.end(), offset,
                                 [](const LexToken& t, uint32_t at) { return t.offset < at; }) -
                tokens_.begin());
}

uint32_t LexicalFile::lines(ByteSpan span) const {
  if (span.end <= span.begin) return 1;
  std::string_view s = text_.substr(span.begin, span.end - 1 - span.begin);
  return uint32_t(std::count(s.begin(), s.end(), '\n')) + 1;
}

void add_lexical_launches(const LexicalFile& f, NativeFile& out) {
  const auto& t = f.tokens();
  bool added = false;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i].kind != LexToken::LaunchOpen) continue;
    // The callee: an identifier, maybe with template arguments, maybe qualified.
    size_t j = template_name(f, i - 1);
    if (j == kNoName) continue;
    size_t first = chain_start(f, j);
    // The configuration, then the argument list.
    size_t k = i + 1;
    int parens = 0;
    for (; k < t.size(); ++k) {
      if (t[k].kind == LexToken::Punct && is_open(t[k].text)) ++parens;
      if (t[k].kind == LexToken::Punct && is_close(t[k].text)) --parens;
      if (parens == 0 && t[k].kind == LexToken::LaunchClose) break;
      if (f.is(k, ";")) break;
    }
    if (k + 1 >= t.size() || t[k].kind != LexToken::LaunchClose || !f.is(k + 1, "(")) continue;
    uint32_t begin = t[first].offset;
    if (f.inactive(begin)) continue;
    size_t m = f.closing(k + 1);
    uint32_t end = m < t.size() ? f.end_of(m) : f.end_of(k);
    auto known = std::find_if(out.launches.begin(), out.launches.end(),
                              [&](const LaunchFact& a) { return a.span.begin == begin; });
    if (known != out.launches.end()) {
      // The AST has it, but cannot name a callee it could not resolve (`fn` declared as
      // `auto fn = undeclared_kernel<T>;`): the name is still written there.
      if (known->kernel.empty()) known->kernel = std::string(t[j].text);
      continue;
    }
    out.launches.push_back({std::string(t[j].text), {begin, end}});
    added = true;
  }
  if (added)
    std::sort(out.launches.begin(), out.launches.end(),
              [](const LaunchFact& a, const LaunchFact& b) { return a.span.begin < b.span.begin; });
}

namespace {

// A format placeholder standing for a name in a kernel source: `{KERNEL_NAME}` at `open`.
bool placeholder_at(const LexicalFile& f, size_t open) {
  return f.is(open, "{") && f.identifier(open + 1) && f.is(open + 2, "}");
}

void measure(const LexicalFile& f, FunctionFact& fn) {
  const auto& t = f.tokens();
  DeviceCodeMetrics m;
  size_t begin = f.index_at(fn.span.begin), end = begin;
  for (; end < t.size() && t[end].offset < fn.span.end; ++end) {
    if (t[end].kind == LexToken::LaunchOpen) ++m.device_launches;
    count_token(t[end], m);
  }
  fn.metrics = m;
  fn.shape = body_shape(f, begin, end);
}

// The `__global__` definitions of `f` that `out` does not have yet.
void add_kernel_definitions(const LexicalFile& f, NativeFile& out, bool runtime_compiled) {
  const auto& t = f.tokens();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text != "__global__" || t[i].kind != LexToken::Identifier || !f.is_code(i)) continue;
    // The name: the identifier (or a source's placeholder) before the parameter list's '('.
    size_t j = i + 1;
    bool found = false;
    size_t placeholder = kNoName;
    for (; j < t.size() && j < i + 64; ++j) {
      if (f.is(j, "__launch_bounds__") && f.is(j + 1, "(")) {
        j = f.closing(j + 1);
        continue;
      }
      if (runtime_compiled && placeholder_at(f, j) && f.is(j + 3, "(")) {
        placeholder = j;
        j += 3;
        found = true;
        break;
      }
      if (f.is(j, "(")) {
        found = true;
        break;
      }
      if (f.is(j, ";") || f.is(j, "{") || f.is(j, "}") || f.is(j, "=")) break;
    }
    // `name(`, or `name<float>(` for an explicit specialization (`template <> __global__ ...`).
    size_t name = placeholder != kNoName ? placeholder : found ? template_name(f, j - 1) : kNoName;
    if (name == kNoName) continue;
    size_t name_last = placeholder != kNoName ? placeholder + 2 : name;
    size_t params_end = f.closing(j);
    size_t body = params_end + 1;
    while (body < t.size() && body < params_end + 16 && !f.is(body, "{") && !f.is(body, ";")) ++body;
    if (!f.is(body, "{")) continue;  // a declaration
    uint32_t name_at = t[name].offset;
    bool known = std::any_of(out.functions.begin(), out.functions.end(),
                             [&](const FunctionFact& fn) { return fn.name_span.begin == name_at; });
    if (known) continue;
    bool is_template = false;
    for (size_t b = i; b-- > 0 && i - b < 64;) {
      if (f.is(b, ";") || f.is(b, "{") || f.is(b, "}")) break;
      if (f.is(b, "template")) {
        // `template <>` starts an explicit specialization: a function of its own, as Clang sees it.
        is_template = !(f.is(b + 1, "<") && f.is(b + 2, ">"));
        break;
      }
    }
    size_t body_end = std::min(f.closing(body), t.size() - 1);
    FunctionFact fn;
    size_t first = placeholder != kNoName ? name : chain_start(f, name);
    fn.name_span = {name_at, f.end_of(name_last)};
    fn.name = std::string(f.text().substr(name_at, fn.name_span.end - name_at));
    fn.qualified_name = placeholder != kNoName ? fn.name : chain_text(f, first, name);
    fn.span = {t[i].offset, f.end_of(body_end)};  // from `__global__`, as Clang's ranges start
    fn.is_kernel = true;
    fn.is_template = is_template;
    fn.lines = f.lines(fn.span);
    fn.lexical = true;
    fn.runtime_compiled = runtime_compiled;
    if (runtime_compiled) measure(f, fn);
    out.functions.push_back(std::move(fn));
  }
}

// Blanks, in `code` (the file's text from `base`), what of the string literal `t` is not its
// contents: its prefix and quotes, a raw string's delimiters, an ordinary string's escape sequences.
void blank_delimiters(const LexToken& t, uint32_t base, std::string& code) {
  std::string_view s = t.text;
  const size_t at = t.offset - base;
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < s.size(); ++k)
      if (code[at + k] != '\n') code[at + k] = ' ';
  };
  size_t quote = s.find('"');
  if (quote == std::string_view::npos) return blank(0, s.size());
  if (quote > 0 && s[quote - 1] == 'R') {
    size_t open = s.find('(', quote);
    if (open == std::string_view::npos) return blank(0, s.size());
    size_t delimiter = open - quote - 1;
    blank(0, open + 1);
    return blank(s.size() >= delimiter + 2 ? s.size() - delimiter - 2 : 0, s.size());
  }
  blank(0, quote + 1);
  blank(s.size() - 1, s.size());
  // An escape sequence is blanked but for an escaped quote: `extern \"C\"` is `extern "C"`.
  for (size_t k = quote + 1; k + 1 < s.size(); ++k)
    if (s[k] == '\\') blank(k, s[k + 1] == '"' || s[k + 1] == '\'' ? k + 1 : k + 2), ++k;
}

}  // namespace

void add_lexical_kernels(const LexicalFile& f, NativeFile& out) { add_kernel_definitions(f, out, false); }

std::vector<KernelSource> kernel_source_strings(const LexicalFile& f) {
  const auto& t = f.tokens();
  std::vector<KernelSource> out;
  for (size_t i = 0; i < t.size();) {
    if (t[i].kind != LexToken::String || !f.is_code(i)) {
      ++i;
      continue;
    }
    size_t last = i;
    bool kernel = false;
    for (; last < t.size() && t[last].kind == LexToken::String; ++last)
      kernel = kernel || t[last].text.find("__global__") != std::string_view::npos;
    if (kernel) {
      KernelSource source{{t[i].offset, f.end_of(last - 1)}, {}};
      source.code = std::string(f.text().substr(source.span.begin, source.span.end - source.span.begin));
      for (size_t k = i; k < last; ++k) blank_delimiters(t[k], source.span.begin, source.code);
      out.push_back(std::move(source));
    }
    i = last;
  }
  return out;
}

void add_runtime_compiled_kernels(const LexicalFile& source, NativeFile& out) {
  add_kernel_definitions(source, out, true);
}

void measure_device_code(const LexicalFile& f, NativeFile& out) {
  for (FunctionFact& fn : out.functions)
    if ((fn.is_kernel || fn.is_device) && !fn.runtime_compiled) measure(f, fn);
}

std::vector<std::pair<size_t, size_t>> directives(const LexicalFile& f) {
  const auto& t = f.tokens();
  // A directive's '#' opens its line: the text since the token before holds a newline that no
  // backslash continues.
  auto opens_line = [&](size_t i) {
    if (i == 0) return true;
    const std::string_view gap =
        f.text().substr(f.end_of(i - 1), t[i].offset - std::min(t[i].offset, f.end_of(i - 1)));
    for (size_t k = gap.find('\n'); k != std::string_view::npos; k = gap.find('\n', k + 1)) {
      size_t before = k;
      while (before > 0 && gap[before - 1] == '\r') --before;
      if (before == 0 || gap[before - 1] != '\\') return true;
    }
    return false;
  };
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].in_directive || t[i].text != "#" || !opens_line(i)) continue;
    size_t end = i + 1;
    while (end < t.size() && t[end].in_directive && !(t[end].text == "#" && opens_line(end))) ++end;
    out.emplace_back(i, end);
    i = end - 1;
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> define_bodies(const LexicalFile& f) {
  const auto& t = f.tokens();
  std::vector<std::pair<size_t, size_t>> out;
  for (auto [i, end] : directives(f)) {
    if (end < i + 3 || !f.is(i + 1, "define") || !f.identifier(i + 2)) continue;
    size_t begin = i + 3;
    // A function-like macro's '(' follows its name with no space between.
    if (f.is(begin, "(") && t[begin].offset == f.end_of(i + 2)) begin = std::min(f.closing(begin), end - 1) + 1;
    if (begin < end) out.emplace_back(begin, end);
  }
  return out;
}

namespace {

// A directive's condition, evaluated over its tokens [at, end) as the preprocessor would, or
// nullopt when a value it needs is not known.
class ConditionValue {
 public:
  ConditionValue(const LexicalFile& f, size_t at, size_t end, const std::function<MacroState(std::string_view)>& state)
      : f_(f), at_(at), end_(end), state_(state) {}

  std::optional<long long> whole() {
    std::optional<long long> v = either();
    if (at_ != end_) return std::nullopt;  // something this evaluator does not read
    return v;
  }

 private:
  bool next_is(std::string_view s) const { return at_ < end_ && f_.is(at_, s); }

  // a || b: true when one side is known true, whatever the other.
  std::optional<long long> either() {
    std::optional<long long> v = both();
    while (ok_ && next_is("||")) {
      ++at_;
      std::optional<long long> w = both();
      v = (v && *v) || (w && *w) ? std::optional<long long>(1) : v && w ? std::optional<long long>(0) : std::nullopt;
    }
    return v;
  }
  std::optional<long long> both() {
    std::optional<long long> v = equality();
    while (ok_ && next_is("&&")) {
      ++at_;
      std::optional<long long> w = equality();
      v = (v && !*v) || (w && !*w) ? std::optional<long long>(0) : v && w ? std::optional<long long>(1) : std::nullopt;
    }
    return v;
  }
  std::optional<long long> equality() {
    std::optional<long long> v = unary();
    while (ok_ && (next_is("==") || next_is("!="))) {
      const bool equal = f_.is(at_++, "==");
      std::optional<long long> w = unary();
      v = v && w ? std::optional<long long>((*v == *w) == equal) : std::nullopt;
    }
    return v;
  }
  std::optional<long long> unary() {
    if (at_ >= end_) return fail();
    const LexToken& t = f_.tokens()[at_];
    if (t.text == "!") {
      ++at_;
      std::optional<long long> v = unary();
      return v ? std::optional<long long>(!*v) : std::nullopt;
    }
    if (t.text == "(") {
      ++at_;
      std::optional<long long> v = either();
      if (!next_is(")")) return fail();
      ++at_;
      return v;
    }
    if (t.kind == LexToken::Number) {
      ++at_;
      std::string digits(t.text);
      while (!digits.empty() && (digits.back() == 'u' || digits.back() == 'U' || digits.back() == 'l' || digits.back() == 'L'))
        digits.pop_back();
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return fail();
      if (digits.size() > 18) return fail();
      return std::stoll(digits);
    }
    if (t.kind != LexToken::Identifier) return fail();
    ++at_;
    if (t.text == "defined") {
      const bool paren = next_is("(");
      if (paren) ++at_;
      if (at_ >= end_ || !f_.identifier(at_)) return fail();
      const MacroState s = state_(f_.tokens()[at_++].text);
      if (paren) {
        if (!next_is(")")) return fail();
        ++at_;
      }
      if (s == MacroState::Unknown) return std::nullopt;
      return s == MacroState::Defined;
    }
    if (at_ < end_ && f_.is(at_, "(")) return fail();  // a function-like macro or __has_include
    // A macro's value is not known; an undefined name is 0.
    if (state_(t.text) == MacroState::Undefined) return 0;
    return std::nullopt;
  }
  std::optional<long long> fail() {
    ok_ = false;
    at_ = end_ + 1;  // never equal to end_: whole() gives up
    return std::nullopt;
  }

  const LexicalFile& f_;
  size_t at_, end_;
  const std::function<MacroState(std::string_view)>& state_;
  bool ok_ = true;
};

}  // namespace

std::optional<std::vector<ByteSpan>> inactive_branches(const LexicalFile& f,
                                                       const std::function<MacroState(std::string_view)>& state) {
  const auto& t = f.tokens();
  std::unordered_map<std::string_view, bool> local;  // #defined (true) or #undef'd (false) so far
  const std::function<MacroState(std::string_view)> known = [&](std::string_view name) {
    auto it = local.find(name);
    if (it != local.end()) return it->second ? MacroState::Defined : MacroState::Undefined;
    return state(name);
  };
  struct Branch {
    bool parent_active;
    bool taken;   // a branch of this #if was active
    bool active;
    uint32_t skipped_from;  // where the current skipped run began
  };
  std::vector<Branch> stack;
  std::vector<ByteSpan> out;
  auto line_end = [&](size_t last) {
    size_t nl = f.text().find('\n', f.end_of(last));
    return uint32_t(nl == std::string_view::npos ? f.text().size() : nl);
  };
  for (auto [b, e] : directives(f)) {
    if (b + 1 >= e || !f.identifier(b + 1)) continue;
    const std::string_view word = t[b + 1].text;
    const bool active = stack.empty() || stack.back().active;
    if (word == "if" || word == "ifdef" || word == "ifndef") {
      if (!active) {
        stack.push_back({false, true, false, 0});
        continue;
      }
      std::optional<long long> value;
      if (word == "if") {
        value = ConditionValue(f, b + 2, e, known).whole();
      } else if (e == b + 3 && f.identifier(b + 2)) {
        const MacroState s = known(t[b + 2].text);
        if (s != MacroState::Unknown) value = (s == MacroState::Defined) == (word == "ifdef");
      }
      if (!value) return std::nullopt;
      stack.push_back({true, *value != 0, *value != 0, t[b].offset});
    } else if (word == "elif" || word == "else") {
      if (stack.empty()) return std::nullopt;
      Branch& br = stack.back();
      if (!br.parent_active) continue;
      if (br.active) {
        br.active = false;
        br.skipped_from = t[b].offset;
      } else if (!br.taken) {
        std::optional<long long> value = word == "else" ? std::optional<long long>(1) : ConditionValue(f, b + 2, e, known).whole();
        if (!value) return std::nullopt;
        if (*value) {
          out.push_back({br.skipped_from, line_end(e - 1)});
          br.active = br.taken = true;
        }
      }
    } else if (word == "endif") {
      if (stack.empty()) return std::nullopt;
      const Branch br = stack.back();
      stack.pop_back();
      if (br.parent_active && !br.active) out.push_back({br.skipped_from, line_end(e - 1)});
    } else if (active && (word == "define" || word == "undef") && b + 2 < e && f.identifier(b + 2)) {
      local[t[b + 2].text] = word == "define";
    }
  }
  if (!stack.empty()) return std::nullopt;  // an #if never closed
  return out;
}

void add_lexical_calls(const LexicalFile& f, NativeFile& out) {
  const auto& t = f.tokens();
  std::vector<std::pair<uint32_t, size_t>> known;  // AST calls by offset
  for (size_t k = 0; k < out.calls.size(); ++k) known.emplace_back(out.calls[k].span.begin, k);
  std::sort(known.begin(), known.end());
  // The first token of the #define body each token is in (npos: none). A call written in a
  // macro's body is the #define's: Clang sees it at every expansion, and leaves those of the
  // scanned tree's macros to this pass (FileSpans::in_tree_macro_body).
  constexpr size_t kNone = size_t(-1);
  std::vector<size_t> body_begin(t.size(), kNone);
  for (auto [begin, end] : define_bodies(f))
    if (!f.inactive(t[begin].offset))
      for (size_t k = begin; k < end; ++k) body_begin[k] = begin;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const bool in_body = body_begin[i] != kNone;
    if (t[i].kind != LexToken::Identifier || !f.is(i + 1, "(") || call_like_keyword(t[i].text) ||
        !(f.is_code(i) || in_body))
      continue;
    size_t first = chain_start(f, i);
    if (in_body && first < body_begin[i]) first = i;
    // A statement starts at a directive line before the name (`#ifndef X` / `f(...)`), like after
    // a `;`, or at the start of a macro's body.
    const bool starts = in_body ? first == body_begin[i] : first == 0 || t[first - 1].in_directive;
    if (!starts) {
      const LexToken& before = t[first - 1];
      if (before.text == "." || before.text == "->" || before.text == "~") continue;  // members
      if (before.text == "#" || before.text == "##") continue;  // stringized or pasted: not a name
      // `Type name(` declares `name`: a function, or a variable with constructor arguments.
      if (before.kind == LexToken::Identifier && !statement_keyword(before.text)) continue;
      if (before.text == ">" || before.text == "*" || before.text == "&" || before.text == "&&") {
        // `T* name(` / `vector<int> name(` declarations; `a * f(x)` products are rare in API calls.
        if (first >= 2 && (t[first - 2].kind == LexToken::Identifier || t[first - 2].text == ">")) continue;
      }
    }
    auto args = arguments(f, i + 1, 1, kArgumentScanLimit);
    std::string first_argument = args.empty() ? "" : argument_name(f, args[0].first, args[0].second);
    auto it = std::lower_bound(known.begin(), known.end(), std::make_pair(t[first].offset, size_t(0)));
    if (it != known.end() && it->first == t[first].offset) {
      // The AST has it; its argument may be one Clang could not resolve.
      CallFact& c = out.calls[it->second];
      if (c.first_argument.empty()) c.first_argument = std::move(first_argument);
      continue;
    }
    CallFact c;
    c.callee = chain_text(f, first, i);
    c.span = {t[first].offset, f.end_of(i)};
    c.first_argument = std::move(first_argument);
    c.in_macro_body = in_body;
    out.calls.push_back(std::move(c));
  }
  std::sort(out.calls.begin(), out.calls.end(),
            [](const CallFact& a, const CallFact& b) { return a.span.begin < b.span.begin; });
  // The innermost enclosing function of each call the AST did not place.
  for (CallFact& c : out.calls) {
    if (!c.function.empty()) continue;
    if (const FunctionFact* best = innermost_function(out.functions, c.span)) c.function = best->name;
  }
}

void add_macro_uses(const LexicalFile& f, NativeFile& out) {
  const auto& t = f.tokens();
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != LexToken::Identifier || !f.is(i + 1, "(") || !upper_case_name(t[i].text) || !f.is_code(i))
      continue;
    if (i > 0 && (f.is(i - 1, ".") || f.is(i - 1, "->"))) continue;
    MacroUseFact m;
    m.name = std::string(t[i].text);
    m.span = {t[i].offset, f.end_of(i)};
    for (auto [a, b] : arguments(f, i + 1, 4, t.size()))
      m.arguments.emplace_back(trim(range_text(f, a, b).substr(0, kMacroArgumentTextLimit)));
    out.macro_uses.push_back(std::move(m));
  }
}

namespace {

// The #include directive whose '#' is token `i`, if it is one (a `#` that begins its line, not a
// `#` operator in a directive). Counted as found: whether the header exists is not known.
std::optional<IncludeFact> include_at(const LexicalFile& f, size_t i) {
  const auto& t = f.tokens();
  if (i + 2 >= t.size() || !t[i].in_directive || t[i].text != "#") return std::nullopt;
  const bool line_start =
      i == 0 || f.text().substr(f.end_of(i - 1), t[i].offset - f.end_of(i - 1)).find('\n') != std::string_view::npos;
  if (!line_start || !(f.is(i + 1, "include") || f.is(i + 1, "include_next"))) return std::nullopt;
  const LexToken& name = t[i + 2];
  IncludeFact inc;
  inc.found = true;
  if (name.kind == LexToken::String && name.text.size() >= 2 && name.text.front() == '"') {
    inc.spelled = std::string(name.text.substr(1, name.text.size() - 2));
    inc.span = {name.offset, f.end_of(i + 2)};
  } else if (name.text == "<") {
    size_t eol = f.text().find('\n', name.offset);
    size_t close = f.text().find('>', name.offset);
    if (close == std::string_view::npos || close > eol) return std::nullopt;
    inc.angled = true;
    inc.spelled = std::string(f.text().substr(name.offset + 1, close - name.offset - 1));
    inc.span = {name.offset, uint32_t(close + 1)};
  } else {
    return std::nullopt;
  }
  if (inc.spelled.empty()) return std::nullopt;
  return inc;
}

}  // namespace

void add_lexical_includes(const LexicalFile& f, NativeFile& out) {
  for (size_t i = 0; i < f.tokens().size(); ++i)
    if (auto inc = include_at(f, i)) out.includes.push_back(std::move(*inc));
}

void add_inactive_includes(const LexicalFile& f, NativeFile& out) {
  for (size_t i = 0; i < f.tokens().size(); ++i) {
    if (!f.inactive(f.tokens()[i].offset)) continue;
    if (auto inc = include_at(f, i)) {
      inc->inactive = true;
      out.includes.push_back(std::move(*inc));
    }
  }
}

void add_name_uses(const LexicalFile& f, NativeFile& out) {
  const auto& t = f.tokens();
  std::unordered_map<std::string_view, size_t> index;  // a name -> its place in `out.names`
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != LexToken::Identifier) continue;
    auto [it, added] = index.try_emplace(t[i].text, out.names.size());
    if (added) out.names.push_back({std::string(t[i].text), {}});
    out.names[it->second].uses.push_back({t[i].offset, f.is(i + 1, "("), f.is(i + 1, "::"), f.inactive(t[i].offset)});
  }
  std::sort(out.names.begin(), out.names.end(),
            [](const NameUseFact& a, const NameUseFact& b) { return a.name < b.name; });
}

void add_qualified_names(const LexicalFile& f, NativeFile& out) {
  const auto& t = f.tokens();
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].kind != LexToken::Identifier || !f.is(i + 1, "::") || !f.identifier(i + 2)) continue;
    if ((i > 0 && f.is(i - 1, "::")) || t[i].text == "std" || t[i].in_directive) continue;
    size_t last = i + 2;
    while (f.is(last + 1, "::") && f.identifier(last + 2)) last += 2;
    out.qualified_names.push_back({chain_text(f, i, last), {t[i].offset, f.end_of(last)}, f.inactive(t[i].offset)});
    i = last;
  }
}

namespace {

// The function called by the body [begin, end) when the body is one call statement,
// `[return] ns::name<args>(...);`; else "".
std::string single_call(const LexicalFile& f, size_t begin, size_t end) {
  size_t i = begin;
  if (f.is(i, "return")) ++i;
  if (!f.identifier(i)) return "";
  size_t last = i;
  while (f.is(last + 1, "::") && f.identifier(last + 2)) last += 2;
  size_t open = last + 1;
  if (f.is(open, "<")) {
    int depth = 0;
    for (; open < end; ++open) {
      if (f.is(open, "<")) ++depth;
      if (f.is(open, ">")) --depth;
      if (f.is(open, ">>")) depth -= 2;
      if (depth <= 0) break;
    }
    ++open;
  }
  if (!f.is(open, "(")) return "";
  size_t close = f.closing(open);
  if (!f.is(close + 1, ";") || close + 2 != end) return "";
  return std::string(f.tokens()[last].text);
}

}  // namespace

void add_template_instantiations(const LexicalFile& f, NativeFile& out) {
  const auto& t = f.tokens();
  std::vector<std::string> found;
  auto add = [&](std::string name) {
    if (std::find(found.begin(), found.end(), name) == found.end()) found.push_back(std::move(name));
  };
  auto next_code = [&](size_t i) {
    while (i < t.size() && !f.is_code(i)) ++i;
    return i;
  };
  auto after_semicolon = [&](size_t i) {
    while (i < t.size() && !f.is(i, ";")) i = f.is(i, "(") || f.is(i, "{") ? f.closing(i) + 1 : i + 1;
    return i + 1;
  };
  int namespaces = 0;
  for (size_t i = next_code(0); i < t.size(); i = next_code(i)) {
    std::string_view s = t[i].text;
    if (s == ";" || (s == "inline" && f.is(i + 1, "namespace"))) {
      ++i;
    } else if (s == "namespace") {
      size_t j = i + 1;
      while (f.identifier(j) || f.is(j, "::")) ++j;
      if (!f.is(j, "{")) return;  // an alias
      ++namespaces;
      i = j + 1;
    } else if (s == "}") {
      if (namespaces-- == 0) return;
      ++i;
    } else if (s == "using" || (s == "extern" && f.is(i + 1, "template"))) {
      i = after_semicolon(i);  // declares, defines nothing
    } else if (s != "template") {
      return;  // any other declaration: code of the file's own
    } else if (f.is(i + 1, "<") && f.is(i + 2, ">")) {
      // An explicit specialization: a declaration, or a body that only calls another template.
      size_t params = i + 3;
      while (params < t.size() && !f.is(params, "(") && !f.is(params, ";") && !f.is(params, "{")) ++params;
      if (!f.is(params, "(")) return;
      size_t body = f.closing(params) + 1;
      for (size_t limit = body + 16; body < t.size() && body < limit && !f.is(body, "{") && !f.is(body, ";");) ++body;
      if (f.is(body, ";")) {
        i = body + 1;
        continue;
      }
      if (!f.is(body, "{")) return;
      size_t body_end = f.closing(body);
      std::string callee = single_call(f, body + 1, body_end);
      if (callee.empty()) return;
      add(std::move(callee));
      i = body_end + 1;
    } else if (f.is(i + 1, "<")) {
      return;  // a template of the file's own
    } else {
      // An explicit instantiation, `template void f<float>(float*);`: the name before its
      // template arguments or parameters.
      std::string name;
      size_t j = i + 1;
      for (; j < t.size() && !f.is(j, ";"); ++j) {
        if (f.is(j, "{")) return;
        if (name.empty() && f.identifier(j) && !t[j].text.starts_with("__") && (f.is(j + 1, "<") || f.is(j + 1, "(")))
          name = std::string(t[j].text);
        if (f.is(j, "(")) j = f.closing(j);
      }
      if (name.empty()) return;
      add(std::move(name));
      i = j + 1;
    }
  }
  // A kernel defined here, even as a specialization that forwards, is code of the file's own.
  bool defines_kernel =
      std::any_of(out.functions.begin(), out.functions.end(), [](const FunctionFact& fn) { return fn.is_kernel; });
  if (namespaces == 0 && !defines_kernel) out.instantiated_templates = std::move(found);
}

}  // namespace tpulint::cxx
