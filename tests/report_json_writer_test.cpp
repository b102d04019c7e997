// JsonWriter must write exactly what nlohmann::json's dump(2) writes for the same document, with
// C1 and bidirectional controls as \u escapes (json_with_escaped_controls, as the other JSON
// formats): the JSON report's bytes (and its goldens) do not depend on how it is produced.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "report/json_writer.h"
#include "report/visible_text.h"

using namespace tpulint::report;
using nlohmann::ordered_json;

namespace {

std::string reference(const ordered_json& doc) {
  return json_with_escaped_controls(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

TEST_CASE("JsonWriter: strings are escaped as nlohmann escapes them, invalid UTF-8 included", "[report][json]") {
  std::vector<std::string> strings = {"", "plain", "quote \" backslash \\ slash /", "\b\f\n\r\t", std::string("nul\0x", 5),
                                      "\x01\x1f\x7f", "ünïcödé ✓ 𝄞", "\xff", "\xc3", "\xe2\x82", "a\xc3(b",
                                      "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 too high", "\xc0\xaf overlong",
                                      "csi \xc2\x9b nel \xc2\x85", "rlo \xe2\x80\xae lri \xe2\x81\xa6 \xd8\x9c"};
  std::mt19937 random(42);  // fixed seed: the same strings every run
  for (int i = 0; i < 2000; ++i) {
    std::string s(random() % 12, ' ');
    for (char& c : s) c = char(random() % 256);
    strings.push_back(s);
  }
  // Long, mostly plain strings (messages, hints) with a rare special byte anywhere: the scan of
  // 8 or 16 bytes at a time must stop at each.
  const std::string specials = std::string("\"\\\x01\x1f\x7f\x80\xc3\xff\n\t") + '\0';
  // Every length to three 16-byte blocks, each special byte (and the plain bounds ' ', '~', DEL)
  // at every position: no block boundary is missed.
  for (size_t length = 1; length <= 48; ++length)
    for (size_t at = 0; at < length; ++at)
      for (char c : specials + " ~") {
        std::string s(length, 'x');
        s[at] = c;
        strings.push_back(s);
      }
  for (int i = 0; i < 4000; ++i) {
    std::string s(random() % 80, ' ');
    for (char& c : s) c = random() % 40 ? char(0x20 + random() % 0x5f) : specials[random() % specials.size()];
    strings.push_back(s);
  }
  size_t mismatches = 0;
  for (const std::string& s : strings) {
    std::string mine;
    append_json_string(mine, s);
    if (mine != reference(ordered_json(s))) ++mismatches;
  }
  CHECK(mismatches == 0);
  // An empty view whose data() is null (a default-constructed one; an empty InternedString's).
  std::string empty;
  append_json_string(empty, std::string_view());
  CHECK(empty == "\"\"");
}

TEST_CASE("JsonWriter: nesting, empty containers, numbers and booleans as dump(2) writes them", "[report][json]") {
  std::string text;
  JsonWriter w(text);
  w.begin_object();
  w.member("int", -3).member("unsigned", uint64_t(18446744073709551615ull)).member("zero", 0.0);
  w.member("most_negative", std::numeric_limits<int64_t>::min()).member("unsigned_zero", uint64_t(0));
  w.member("twelve", 12.0).member("fraction", 0.35).member("third", 1.0 / 3).member("yes", true).member("no", false);
  w.key("empty_array").begin_array().end_array();
  w.key("empty_object").begin_object().end_object();
  w.key("strings").value(std::vector<std::string>{"a", "b"});
  w.key("no_strings").value(std::vector<std::string>{});
  w.key("nested").begin_array();
  w.begin_object().member("k", "v").key("inner").begin_array().value(1).begin_array().end_array().end_array().end_object();
  w.begin_object().end_object();
  w.value("last");
  w.end_array();
  w.end_object();

  ordered_json doc;
  doc["int"] = -3;
  doc["unsigned"] = uint64_t(18446744073709551615ull);
  doc["zero"] = 0.0;
  doc["most_negative"] = std::numeric_limits<int64_t>::min();
  doc["unsigned_zero"] = uint64_t(0);
  doc["twelve"] = 12.0;
  doc["fraction"] = 0.35;
  doc["third"] = 1.0 / 3;
  doc["yes"] = true;
  doc["no"] = false;
  doc["empty_array"] = ordered_json::array();
  doc["empty_object"] = ordered_json::object();
  doc["strings"] = {"a", "b"};
  doc["no_strings"] = ordered_json::array();
  ordered_json inner = ordered_json::object();
  inner["k"] = "v";
  inner["inner"] = ordered_json::array({1, ordered_json::array()});
  doc["nested"] = ordered_json::array({inner, ordered_json::object(), "last"});
  CHECK(text.empty());  // held in the writer's buffer until flushed
  w.flush();
  CHECK(text == reference(doc));
}

TEST_CASE("JsonWriter: doubles are written as nlohmann writes them", "[report][json]") {
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 12.0, 0.35, 0.3, 0.1 + 0.2, 1.0 / 3, 0.01, 0.005, 1e-7, 99.99,
                                1461.5, 415.55, 1e12, 9.99e12 + 0.25, 1e13, 1e15, 1e16, 1.5e300, -2.75,
                                std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max()};
  std::mt19937_64 random(7);  // fixed seed: the same values every run
  std::uniform_real_distribution<double> any(-1e6, 1e6);
  for (int i = 0; i < 20000; ++i) {
    double x = any(random);
    values.push_back(x);
    values.push_back(std::round(x * 100) / 100);  // the report's two-decimal values
    values.push_back(std::round(x) / 4);
  }
  size_t mismatches = 0;
  for (double x : values) {
    std::string mine;
    append_json_number(mine, x);
    if (mine != nlohmann::json(x).dump()) {
      if (++mismatches <= 5) WARN(mine << " vs " << nlohmann::json(x).dump());
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("JsonWriter: indentation past the precomputed depth", "[report][json]") {
  std::string text;
  JsonWriter w(text);
  for (int depth = 0; depth < 70; ++depth) w.begin_array().value(depth);
  w.value("deepest");
  for (int depth = 0; depth < 70; ++depth) w.end_array();
  w.flush();
  // The same document, built inside out: [0, [1, [... [69, "deepest"]]]].
  ordered_json expected = ordered_json::array({69, "deepest"});
  for (int depth = 68; depth >= 0; --depth) expected = ordered_json::array({ordered_json(depth), expected});
  CHECK(text == reference(expected));
}

TEST_CASE("JsonWriter: members at every depth, past the precomputed one", "[report][json]") {
  // A member's lead and name are written in fixed-size pieces up to kMaxLeadDepth and piece by
  // piece beyond it; each depth's object has two members, so that both leads are written.
  std::string text;
  JsonWriter w(text);
  w.begin_object();
  for (int depth = 1; depth < 70; ++depth) w.member("depth", depth).key("inner").begin_object();
  w.member("depth", 70).member("last", "deepest");
  for (int depth = 0; depth < 70; ++depth) w.end_object();
  w.flush();
  ordered_json expected = {{"depth", 70}, {"last", "deepest"}};
  for (int depth = 69; depth >= 1; --depth) expected = ordered_json{{"depth", depth}, {"inner", expected}};
  CHECK(text == reference(expected));
}

TEST_CASE("JsonWriter: a document many times its buffer, to a stream, with strings of every length", "[report][json]") {
  // Strings from empty to several times the writer's 64 KiB buffer, plain, with escapes, and
  // with a non-ASCII byte early, late or after an escape: each must come out whole wherever
  // the buffer happens to fill.
  std::mt19937 random(3);  // fixed seed: the same document every run
  std::vector<std::string> strings;
  for (size_t length : {size_t(0), size_t(1), size_t(7), size_t(100), size_t(10921), size_t(10922), size_t(10923),
                        size_t(40000), size_t(70000), size_t(200000)}) {
    std::string plain(length, 'a');
    for (char& c : plain) c = char(0x20 + random() % 0x5f);
    strings.push_back(plain);
    if (length == 0) continue;
    std::string escapes = plain;
    for (size_t i = 0; i < length; i += 1 + random() % 50) escapes[i] = "\"\\\n\x01"[random() % 4];
    strings.push_back(escapes);
    std::string late_unicode = escapes;
    late_unicode[length - 1] = char(0xc3);
    strings.push_back(late_unicode);
    std::string early_unicode = plain;
    early_unicode[0] = char(0xe2);
    strings.push_back(early_unicode);
  }
  std::ostringstream stream;
  ordered_json doc = ordered_json::array();
  {
    JsonWriter w(stream);
    w.begin_array();
    for (int round = 0; round < 3; ++round)
      for (const std::string& s : strings) {
        w.begin_object().member("text", s).member("size", uint64_t(s.size())).member("half", s.size() / 2.0).end_object();
        ordered_json item;
        item["text"] = s;
        item["size"] = uint64_t(s.size());
        item["half"] = s.size() / 2.0;
        doc.push_back(item);
      }
    w.end_array();
  }  // the destructor passes the rest on
  CHECK(stream.str().size() > 10 * 65536);
  CHECK(stream.str() == reference(doc));
}

TEST_CASE("JsonWriter: elements formatted apart are put back as if written in one go", "[report][json]") {
  // Arrays two and four containers deep ({"outer": [...]} and {"outer": [{"inner": [...]}]}),
  // cut into runs of several lengths: each run is written by a LaterElements writer of its own
  // and put back with elements(), the first run too (its separator is dropped) and empty ones.
  for (size_t depth : {size_t(2), size_t(4)}) {
    for (size_t run : {size_t(1), size_t(2), size_t(3), size_t(7)}) {
      for (size_t count : {size_t(0), size_t(1), size_t(2), size_t(6), size_t(7), size_t(15)}) {
        ordered_json elements = ordered_json::array();
        for (size_t i = 0; i < count; ++i)
          elements.push_back({{"i", i}, {"text", "line \"" + std::to_string(i) + "\"\n"}, {"list", {i, "x"}}});
        ordered_json doc = {{"head", 1}, {"outer", ordered_json::array()}};
        if (depth == 2) doc["outer"] = elements;
        else doc["outer"].push_back({{"inner", elements}});

        std::string text;
        {
          JsonWriter w(text);
          w.begin_object().member("head", 1).key("outer").begin_array();
          if (depth == 4) w.begin_object().key("inner").begin_array();
          for (size_t first = 0; first <= count; first += run) {
            const size_t n = std::min(run, count - first);
            std::string piece;
            {
              JsonWriter p(piece, JsonWriter::LaterElements{depth});
              for (size_t i = first; i < first + n; ++i) {
                p.begin_object().member("i", uint64_t(i));
                p.member("text", "line \"" + std::to_string(i) + "\"\n");
                p.key("list").begin_array().value(uint64_t(i)).value("x").end_array().end_object();
              }
            }
            w.elements(piece, n);
            if (first == count) break;
          }
          if (depth == 4) w.end_array().end_object();
          w.end_array().end_object();
        }
        INFO("depth " << depth << ", runs of " << run << ", " << count << " elements");
        CHECK(text == reference(doc));
      }
    }
  }
}
