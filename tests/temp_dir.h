// A fresh directory under the system temp directory for a test, removed with its contents.
#pragma once

#include <filesystem>
#include <string>

namespace tpulint::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str(const std::string& relative = "") const;  // the directory, or a path in it
  // Writes `content` to `relative` (creating parent directories) and returns its full path.
  std::filesystem::path write(const std::string& relative, const std::string& content = "x = 1\n") const;
  void mkdir(const std::string& relative) const;
  // A symlink at `relative` to `target` (absolute, or relative to the link's directory).
  void symlink(const std::filesystem::path& target, const std::string& relative, bool to_dir = false) const;

 private:
  std::filesystem::path path_;
};

}  // namespace tpulint::testing
