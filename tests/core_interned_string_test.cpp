// InternedString: equal values share one copy; it reads, compares, orders, hashes and formats
// like the string it holds, and interning from several threads at once gives one copy per value.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_set>
#include <vector>

#include "core/interned_string.h"

using tpulint::InternedString;

TEST_CASE("interned strings: equal values share one copy, whatever they were made from", "[core][interned]") {
  std::string built = "pkg/";
  built += "model.py";
  InternedString a(built);
  built = "overwritten";  // the interned copy does not depend on the source
  InternedString b("pkg/model.py");
  InternedString c;
  c = std::string("pkg/model.py");
  CHECK(a.view() == "pkg/model.py");
  CHECK(a.data() == b.data());
  CHECK(a.data() == c.data());
  CHECK(a == b);
  CHECK(a == "pkg/model.py");
  CHECK(a == std::string("pkg/model.py"));
  CHECK_FALSE(a == InternedString("pkg/model.pyi"));
  CHECK(InternedString("x").data() != a.data());
}

TEST_CASE("interned strings: the empty value, and reading like a string", "[core][interned]") {
  InternedString empty, made(""), assigned;
  assigned = "";
  CHECK(empty.empty());
  CHECK(empty == made);
  CHECK(empty == assigned);
  CHECK(empty == "");
  CHECK(empty.str().empty());

  InternedString s("torch.cuda.synchronize");
  CHECK(s.size() == 22);
  CHECK(s.starts_with("torch."));
  CHECK(s.ends_with("synchronize"));
  CHECK(s.find('.') == 5);
  CHECK(s.rfind('.') == 10);
  CHECK(s.substr(6, 4) == "cuda");
  CHECK(s.back() == 'e');
  CHECK(std::string(s.begin(), s.end()) == "torch.cuda.synchronize");
  CHECK(fmt::format("[{:>24}]", s) == "[  torch.cuda.synchronize]");
  std::ostringstream out;
  out << s;
  CHECK(out.str() == "torch.cuda.synchronize");
  std::string appended = "at ";
  appended += s;
  CHECK(appended == "at torch.cuda.synchronize");
}

TEST_CASE("interned strings order and hash by their text", "[core][interned]") {
  // Made in an order unlike the text's, so that addresses cannot stand in for the order.
  std::vector<InternedString> made{InternedString("b/z.py"), InternedString("a/y.py"), InternedString("b/a.py"),
                                   InternedString("a/y.py"), InternedString("")};
  std::set<InternedString> ordered(made.begin(), made.end());
  std::vector<std::string> texts;
  for (const InternedString& s : ordered) texts.push_back(s.str());
  CHECK(texts == std::vector<std::string>{"", "a/y.py", "b/a.py", "b/z.py"});
  CHECK(InternedString("a") < InternedString("b"));
  CHECK(InternedString("b") > std::string_view("a"));
  CHECK((InternedString("a") <=> InternedString("a")) == std::strong_ordering::equal);
  std::unordered_set<InternedString> hashed(made.begin(), made.end());
  CHECK(hashed.size() == 4);
  CHECK(hashed.count(InternedString("b/a.py")) == 1);
  CHECK(std::hash<InternedString>()(InternedString("q")) == std::hash<std::string_view>()("q"));
}

TEST_CASE("interned strings: threads interning the same values at once get one copy each", "[core][interned]") {
  constexpr int kThreads = 4, kValues = 2000;
  std::vector<std::vector<const char*>> seen(kThreads, std::vector<const char*>(kValues));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread walks the values from its own starting point.
      for (int k = 0; k < kValues; ++k) {
        int v = (k + t * 500) % kValues;
        seen[t][v] = InternedString("thread-value-" + std::to_string(v)).data();
      }
    });
  for (std::thread& t : threads) t.join();
  for (int v = 0; v < kValues; ++v) {
    INFO("value " << v);
    for (int t = 1; t < kThreads; ++t) CHECK(seen[t][v] == seen[0][v]);
    CHECK(std::string_view(seen[0][v]).starts_with("thread-value-" + std::to_string(v)));
  }
}

TEST_CASE("interned strings: values made again and again, alternating or alike, stay themselves",
          "[core][interned]") {
  // A thread's recent values are answered without the table. Values of one length whose first,
  // middle and last bytes agree fall into one slot of that cache: each must still get its own
  // copy, and each copy must be the table's.
  std::vector<std::string> alike;
  for (char c = 'a'; c <= 'z'; ++c) alike.push_back(std::string("x") + c + "-m-" + c + "y");  // "xa-m-ay"...
  std::vector<const char*> first(alike.size());
  for (size_t i = 0; i < alike.size(); ++i) first[i] = InternedString(alike[i]).data();
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < alike.size(); ++i) {
      size_t k = (i * 7 + size_t(round)) % alike.size();  // not the order they were made in
      InternedString s(alike[k]);
      INFO(alike[k]);
      CHECK(s.view() == alike[k]);
      CHECK(s.data() == first[k]);
    }
  // Made on another thread, whose recent values start empty: the same copies.
  std::vector<const char*> other(alike.size());
  std::thread([&] {
    for (size_t i = 0; i < alike.size(); ++i) other[i] = InternedString(alike[i]).data();
  }).join();
  CHECK(other == first);
}
