#include "temp_dir.h"

#include <atomic>
#include <fstream>
#include <random>

namespace fs = std::filesystem;

namespace tpulint::testing {

TempDir::TempDir() {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  for (;;) {
    fs::path p = fs::temp_directory_path() / ("tpulint-test-" + std::to_string(rd()) + "-" + std::to_string(counter++));
    if (fs::create_directory(p)) {
      path_ = p;
      return;
    }
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::str(const std::string& relative) const {
  return relative.empty() ? path_.string() : (path_ / relative).string();
}

fs::path TempDir::write(const std::string& relative, const std::string& content) const {
  fs::path p = path_ / relative;
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

void TempDir::mkdir(const std::string& relative) const { fs::create_directories(path_ / relative); }

void TempDir::symlink(const fs::path& target, const std::string& relative, bool to_dir) const {
  fs::path p = path_ / relative;
  fs::create_directories(p.parent_path());
  if (to_dir)
    fs::create_directory_symlink(target, p);
  else
    fs::create_symlink(target, p);
}

}  // namespace tpulint::testing
