#include "core/result_codec.h"

#include "core/byte_scan.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tpulint {

namespace {

// The encoding: one line of tab-separated fields. Strings escape backslash, tab, newline and
// carriage return, so a field never holds a separator and the line never breaks (the cache
// file keeps one result per line). Integers are decimal. Hours are their double's 64 bits, byte
// order reversed, in hex: exact both ways at a fraction of the cost of the shortest decimal text
// (two doubles a finding were 1.4% of the checks' cost at 10k lines), and short, as the low bytes
// of a round number such as 0.25 (0x3FD0000000000000, written "d03f") are zero.
constexpr std::string_view kMagic = "r10";

bool needs_escape(char c) { return c == '\\' || c == '\t' || c == '\n' || c == '\r'; }

// The length of the run at the start of `s` with nothing to escape, eight bytes at a time:
// fields are messages, hints and source lines, nearly always without one.
size_t unescaped_prefix(std::string_view s) {
  using namespace bytes;
  // Tab, newline and carriage return are below 0x0E.
  return plain_run(
      s, [](uint64_t w) { return any_byte_below(w, 0x0E) | any_byte_equal(w, '\\'); },
      [](unsigned char c) { return !needs_escape(char(c)); });
}

void put_string(std::string& out, std::string_view s) {
  out += '\t';
  for (;;) {
    const size_t plain = unescaped_prefix(s);
    out.append(s.data(), plain);
    if (plain == s.size()) return;
    const char c = s[plain];
    out += '\\';
    out += c == '\\' ? '\\' : c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
    s.remove_prefix(plain + 1);
  }
}

template <typename Number>
void put_number(std::string& out, Number n) {
  static_assert(std::is_integral_v<Number>);
  out += '\t';
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
}

void put_double(std::string& out, double d) {
  out += '\t';
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, __builtin_bswap64(std::bit_cast<uint64_t>(d)), 16).ptr);
}

// Reads fields in order; any malformed or missing field makes the whole text invalid.
class FieldReader {
 public:
  explicit FieldReader(std::string_view text) : text_(text) {}

  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == std::string_view::npos; }

  std::string_view raw() {
    if (pos_ == std::string_view::npos) {
      ok_ = false;
      return {};
    }
    size_t tab = text_.find('\t', pos_);
    std::string_view field = text_.substr(pos_, tab == std::string_view::npos ? std::string_view::npos : tab - pos_);
    pos_ = tab == std::string_view::npos ? std::string_view::npos : tab + 1;
    return field;
  }

  std::string string() { return unescape(raw()); }

  // A field held by an InternedString, read in place unless it has escapes. `previous`, the
  // same field of the finding before, is taken again when the text is the same, without the
  // table: a file's findings share their path, and often their check, message, hint, subject
  // and line.
  InternedString interned(InternedString& previous) {
    std::string_view f = raw();
    if (f.find('\\') != std::string_view::npos) return previous = InternedString(unescape(f));
    if (f != previous.view()) previous = InternedString(f);
    return previous;
  }

  template <typename Number>
  Number number(int base = 10) {
    static_assert(std::is_integral_v<Number>);
    std::string_view f = raw();
    Number n{};
    auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), n, base);
    if (ec != std::errc() || end != f.data() + f.size()) ok_ = false;
    return n;
  }

  double real() { return std::bit_cast<double>(__builtin_bswap64(number<uint64_t>(16))); }

  // An enumerator, from the first to `last`: any other number is damage, not a value to clamp
  // (a clamped value would encode back to another text).
  template <typename Enum>
  Enum enumerated(Enum last) {
    int n = number<int>();
    if (n < 0 || n > int(last)) ok_ = false;
    return ok_ ? Enum(n) : Enum{};
  }

  // A category: one of kAllCategories (their numbers have gaps).
  Category category() {
    Category c = enumerated(Category::AnalyzerNote);
    if (std::find(std::begin(kAllCategories), std::end(kAllCategories), c) == std::end(kAllCategories)) ok_ = false;
    return c;
  }

  // A count of following items, bounded by what the text could hold (a damaged count must not
  // make the decoder reserve gigabytes).
  size_t count() {
    size_t n = number<size_t>();
    if (n > text_.size()) ok_ = false;
    return ok_ ? n : 0;
  }

 private:
  std::string unescape(std::string_view f) {
    std::string out;
    out.reserve(f.size());
    size_t copied = 0;  // f[copied, i) holds no escape: appended in one piece
    for (size_t i = f.find('\\'); i != std::string_view::npos; i = f.find('\\', copied)) {
      out.append(f.data() + copied, i - copied);
      if (i + 1 == f.size()) {
        ok_ = false;
        return out;
      }
      switch (f[i + 1]) {
        case '\\': out += '\\'; break;
        case 't': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        default: ok_ = false;
      }
      copied = i + 2;
    }
    out.append(f.data() + copied, f.size() - copied);
    return out;
  }

  std::string_view text_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// The interned fields of the finding read before, taken again when the same (FieldReader::interned).
struct PreviousFinding {
  InternedString check_name, path, message, hint, subject, source_line, optional_option;
};

void read_finding(FieldReader& in, Finding& f, PreviousFinding& previous) {
  f.check_id = in.string();
  f.check_name = in.interned(previous.check_name);
  f.category = in.category();
  f.severity = in.enumerated(Severity::Error);
  f.effort = in.enumerated(EffortClass::High);
  f.hours.low = in.real();
  f.hours.high = in.real();
  f.path = in.interned(previous.path);
  f.start.line = in.number<uint32_t>();
  f.start.column = in.number<uint32_t>();
  f.end.line = in.number<uint32_t>();
  f.end.column = in.number<uint32_t>();
  f.cell.index = in.number<uint32_t>();
  if (f.cell.index) {
    f.cell.start.line = in.number<uint32_t>();
    f.cell.start.column = in.number<uint32_t>();
    f.cell.end.line = in.number<uint32_t>();
    f.cell.end.column = in.number<uint32_t>();
  }
  f.message = in.interned(previous.message);
  f.hint = in.interned(previous.hint);
  f.subject = in.interned(previous.subject);
  f.source_line = in.interned(previous.source_line);
  f.code_lines = in.number<uint32_t>();
  f.context = in.enumerated(Context::Test);
  f.discounted = in.number<int>() != 0;
  f.priced_once = in.number<int>() != 0;
  f.standard_op_use = in.number<int>() != 0;
  f.optional_option = in.interned(previous.optional_option);
  size_t related = in.count();
  for (size_t k = 0; k < related && in.ok(); ++k) f.related_paths.push_back(in.string());
}

void put_finding(std::string& out, const Finding& f) {
  put_string(out, f.check_id);
  put_string(out, f.check_name);
  put_number(out, int(f.category));
  put_number(out, int(f.severity));
  put_number(out, int(f.effort));
  put_double(out, f.hours.low);
  put_double(out, f.hours.high);
  put_string(out, f.path);
  put_number(out, f.start.line);
  put_number(out, f.start.column);
  put_number(out, f.end.line);
  put_number(out, f.end.column);
  put_number(out, f.cell.index);
  if (f.cell.index) {
    put_number(out, f.cell.start.line);
    put_number(out, f.cell.start.column);
    put_number(out, f.cell.end.line);
    put_number(out, f.cell.end.column);
  }
  put_string(out, f.message);
  put_string(out, f.hint);
  put_string(out, f.subject);
  put_string(out, f.source_line);
  put_number(out, f.code_lines);
  put_number(out, int(f.context));
  put_number(out, int(f.discounted));
  put_number(out, int(f.priced_once));
  put_number(out, int(f.standard_op_use));
  put_string(out, f.optional_option);
  put_number(out, f.related_paths.size());
  for (const std::string& p : f.related_paths) put_string(out, p);
}

}  // namespace

std::string encode_result(const FileResult& r) {
  std::string out;
  append_encoded_result(out, r);
  return out;
}

void append_encoded_result(std::string& out, const FileResult& r) { append_encoded_result(out, r, r.findings); }

void append_encoded_result(std::string& out, const FileResult& r, std::span<const Finding> findings) {
  // Sized once: the strings plus room for the numbers and separators.
  size_t size = out.size() + 64 + r.skip_reason.size();
  for (const Finding& f : findings) {
    size += 160 + f.check_id.size() + f.check_name.size() + f.path.size() + f.message.size() + f.hint.size() +
            f.subject.size() + f.source_line.size();
    for (const std::string& p : f.related_paths) size += 1 + p.size();
  }
  for (const std::string& h : r.missing_headers) size += 1 + h.size();
  for (const std::string& h : r.project_includes) size += 1 + h.size();
  for (const TouchLine& t : r.touches) size += 16 + t.check_id.size() + t.subject.size();
  out.reserve(size);
  out += kMagic;
  put_number(out, int(r.language));
  put_number(out, r.analyzed ? 1 : 0);
  put_string(out, r.skip_reason);
  put_number(out, r.code_lines);
  put_number(out, findings.size());
  for (const Finding& f : findings) put_finding(out, f);
  put_number(out, r.missing_headers.size());
  for (const std::string& h : r.missing_headers) put_string(out, h);
  put_number(out, r.project_includes.size());
  for (const std::string& h : r.project_includes) put_string(out, h);
  put_number(out, r.touches.size());
  for (const TouchLine& t : r.touches) {
    put_string(out, t.check_id);
    put_number(out, int(t.category));
    put_string(out, t.subject);
    put_number(out, t.line);
  }
  put_number(out, r.links.uses.size());
  for (const FileLinks::Use& u : r.links.uses) {
    put_number(out, int(u.kind));
    put_string(out, u.target);
    put_number(out, u.line);
    put_number(out, int(u.context));
    put_number(out, u.function);
  }
  put_number(out, r.links.functions.size());
  for (const FileLinks::Function& f : r.links.functions) {
    put_string(out, f.name);
    put_number(out, f.first_line);
    put_number(out, f.last_line);
    put_number(out, int(f.used_here));
    put_number(out, int(f.role));
    put_number(out, int(f.kernel));
  }
  put_number(out, r.links.launches.size());
  for (const FileLinks::Launch& l : r.links.launches) {
    put_string(out, l.target);
    put_number(out, l.at.line);
    put_number(out, l.at.column);
    put_finding(out, l.finding);
  }
  put_number(out, r.links.options_turned_on.size());
  for (const std::string& o : r.links.options_turned_on) put_string(out, o);
  put_number(out, int(r.links.defines_model));
  put_number(out, r.links.main_first_line);
  put_number(out, r.links.main_last_line);
  put_number(out, int(r.links.script));
  put_number(out, int(r.links.frameworks));
}

std::optional<FileResult> decode_result(const std::string& path, std::string_view text) {
  std::vector<Finding> findings;
  std::optional<FileResult> r = decode_result_into(path, text, findings);
  if (r) r->findings = std::move(findings);
  return r;
}

std::optional<FileResult> decode_result_into(const std::string& path, std::string_view text,
                                             std::vector<Finding>& out) {
  FieldReader in(text);
  if (in.raw() != kMagic) return std::nullopt;
  FileResult r;
  r.path = path;
  r.language = Language(in.number<int>());
  r.analyzed = in.number<int>() != 0;
  r.skip_reason = in.string();
  r.code_lines = in.number<uint32_t>();
  const size_t before = out.size();
  size_t findings = in.count();
  // Room made once (a finding's fields take more than 16 bytes, which bounds a damaged count),
  // and at least doubled when `out` is a scan's growing list, so that it is not moved per file.
  const size_t room = std::min(findings, text.size() / 16);
  if (out.capacity() - before < room) out.reserve(std::max(before + room, before ? 2 * out.capacity() : 0));
  PreviousFinding previous;
  for (size_t i = 0; i < findings && in.ok(); ++i) read_finding(in, out.emplace_back(), previous);
  size_t missing = in.count();
  for (size_t k = 0; k < missing && in.ok(); ++k) r.missing_headers.push_back(in.string());
  size_t included = in.count();
  for (size_t k = 0; k < included && in.ok(); ++k) r.project_includes.push_back(in.string());
  size_t touches = in.count();
  for (size_t k = 0; k < touches && in.ok(); ++k) {
    TouchLine& t = r.touches.emplace_back();
    t.check_id = in.string();
    t.category = in.category();
    t.subject = in.string();
    t.line = in.number<uint32_t>();
  }
  size_t uses = in.count();
  for (size_t k = 0; k < uses && in.ok(); ++k) {
    FileLinks::Use& u = r.links.uses.emplace_back();
    u.kind = in.enumerated(FileLinks::Kind::File);
    u.target = in.string();
    u.line = in.number<uint32_t>();
    u.context = in.enumerated(Context::Test);
    u.function = in.number<int32_t>();
  }
  size_t functions = in.count();
  for (size_t k = 0; k < functions && in.ok(); ++k) {
    FileLinks::Function& f = r.links.functions.emplace_back();
    f.name = in.string();
    f.first_line = in.number<uint32_t>();
    f.last_line = in.number<uint32_t>();
    f.used_here = in.number<int>() != 0;
    f.role = in.enumerated(Context::Test);
    f.kernel = in.number<int>() != 0;
  }
  size_t launches = in.count();
  PreviousFinding previous_launch;
  for (size_t k = 0; k < launches && in.ok(); ++k) {
    FileLinks::Launch& l = r.links.launches.emplace_back();
    l.target = in.string();
    l.at.line = in.number<uint32_t>();
    l.at.column = in.number<uint32_t>();
    read_finding(in, l.finding, previous_launch);
    l.finding.awaits_link = true;
  }
  size_t options = in.count();
  for (size_t k = 0; k < options && in.ok(); ++k) r.links.options_turned_on.push_back(in.string());
  r.links.defines_model = in.number<int>() != 0;
  r.links.main_first_line = in.number<uint32_t>();
  r.links.main_last_line = in.number<uint32_t>();
  r.links.script = in.number<int>() != 0;
  r.links.frameworks = uint8_t(in.number<int>() & 7);
  if (!in.ok() || !in.at_end()) {
    out.erase(out.begin() + ptrdiff_t(before), out.end());
    return std::nullopt;
  }
  return r;
}

}  // namespace tpulint
