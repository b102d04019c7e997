// Turns a data table (checks/data/*.tsv) into a C++ header with a constexpr array of rows.
//
//   gen_data_table INPUT.tsv OUTPUT.h TableName
//
// The TSV's leading '#' lines (its source and version) are copied into the header comment.
// The first other line names the columns; each later line is a row. The first column is the
// key: rows must be sorted by it and unique, so lookups can binary-search. Errors name the
// file and line and fail the build.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, '\t')) out.push_back(cell);
  if (!line.empty() && line.back() == '\t') out.emplace_back();
  return out;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

int fail(const std::string& where, const std::string& what) {
  std::cerr << where << ": error: " << what << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: gen_data_table INPUT.tsv OUTPUT.h TableName\n";
    return 2;
  }
  std::string input = argv[1], output = argv[2], table = argv[3];
  std::ifstream in(input);
  if (!in) return fail(input, "cannot read");

  std::vector<std::string> header_comments;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string where = input + ":" + std::to_string(lineno);
    if (line.empty()) continue;
    if (line[0] == '#') {
      if (rows.empty() && columns.empty()) header_comments.push_back(line.substr(1));
      continue;
    }
    auto cells = split_tabs(line);
    if (columns.empty()) {
      for (const auto& c : cells)
        if (!is_identifier(c)) return fail(where, "column name '" + c + "' is not an identifier");
      columns = cells;
      continue;
    }
    if (cells.size() != columns.size())
      return fail(where, "expected " + std::to_string(columns.size()) + " tab-separated cells, found " +
                             std::to_string(cells.size()));
    if (!rows.empty() && !(rows.back()[0] < cells[0]))
      return fail(where, "key '" + cells[0] + "' is not after '" + rows.back()[0] +
                             "': rows must be sorted by the first column and unique");
    rows.push_back(cells);
  }
  if (columns.empty()) return fail(input, "no column header line");

  std::ostringstream out;
  out << "// Generated from " << input.substr(input.rfind("checks/") == std::string::npos ? 0 : input.rfind("checks/"))
      << " by tools/gen_data_table.cpp; do not edit.\n//\n";
  for (const auto& c : header_comments) out << "//" << c << "\n";
  out << "#pragma once\n\n#include <string_view>\n\nnamespace tpulint::data {\n\n";
  out << "struct " << table << "Row {\n";
  for (const auto& c : columns) out << "  std::string_view " << c << ";\n";
  out << "};\n\n";
  out << "inline constexpr " << table << "Row k" << table << "[] = {\n";
  for (const auto& r : rows) {
    out << "    {";
    for (size_t i = 0; i < r.size(); ++i) out << (i ? ", " : "") << '"' << escape(r[i]) << '"';
    out << "},\n";
  }
  out << "};\n\n}  // namespace tpulint::data\n";

  // Write only when the content changes, so dependents are not rebuilt for nothing.
  std::string text = out.str();
  std::ifstream existing(output);
  std::stringstream old;
  old << existing.rdbuf();
  if (existing && old.str() == text) return 0;
  std::ofstream o(output);
  o << text;
  return o ? 0 : fail(output, "cannot write");
}
