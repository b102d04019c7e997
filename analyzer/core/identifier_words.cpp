#include "core/identifier_words.h"

#include <cctype>

namespace tpulint {

namespace {

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_lower(c) || is_upper(c) || is_digit(c); }

}  // namespace

std::vector<std::string> identifier_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!is_alnum(c)) {
      flush();
      continue;
    }
    if (!word.empty()) {
      char prev = name[i - 1];
      bool next_lower = i + 1 < name.size() && is_lower(name[i + 1]);
      if ((is_upper(c) && (is_lower(prev) || is_digit(prev))) || (is_upper(c) && is_upper(prev) && next_lower) ||
          (is_digit(c) != is_digit(prev)))
        flush();
    }
    word += char(std::tolower(static_cast<unsigned char>(c)));
  }
  flush();
  return words;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace tpulint
