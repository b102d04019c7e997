// What both fuzz targets share: the input goes through the same per-file path as a scan
// (Engine::analyze_file: load, UTF-8 and binary gates, frontend, checks, suppressions), so a
// bug the fuzzer finds is a bug a hostile file in a scanned repository would hit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "app/engine.h"

namespace tpulint::fuzz {

// Writes the input to `name` in a directory of this process and analyzes it with every check.
inline void analyze_bytes(const std::string& name, const uint8_t* data, size_t size) {
  static const app::Engine engine{[] {
    app::EngineOptions options;
    options.find_compile_database = false;
    return options;
  }()};
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("tpulint-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  std::filesystem::path file = dir / name;
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  FileResult result = engine.analyze_file(file, name);
  // Every finding must lie inside the file: a position past its last line is a bug.
  uint32_t max_line = 1;
  for (size_t i = 0; i < size; ++i) max_line += data[i] == '\n' || data[i] == '\r';
  for (const Finding& f : result.findings)
    if (f.start.line < 1 || f.end < f.start || f.end.line > max_line) __builtin_trap();
}

}  // namespace tpulint::fuzz
