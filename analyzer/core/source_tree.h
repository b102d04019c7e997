// The scanned tree as the only place a scan reads from. A scanned repository is hostile: a
// symlink, a FIFO or a device in it, or a file swapped for one of those while the scan runs,
// must not make tpulint read outside it or block. Every read of a scanned file goes through
// SourceTree: the path is resolved beneath the root one component at a time, no symlink is
// followed (the kernel's openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or a component-wise
// openat with O_NOFOLLOW where that is missing), and only regular files are read, up to a
// size limit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint {

// What identifies a version of a file for the result cache: an edit that restores the size
// and the modification time still changes the inode change time (which no user call sets).
struct FileStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};

// The stamp of the file at `path` itself (a symlink's own, never its target's).
std::optional<FileStamp> stamp_of(const std::filesystem::path& path);

// The part of `path` below `base`, '/'-separated ("" when they are equal), compared component by
// component and lexically (neither is normalized or resolved); nullopt when `path` is not below
// `base`.
std::optional<std::string> path_beneath(const std::filesystem::path& path, const std::filesystem::path& base);

// `relative` as a '/'-separated path with no empty, "." or ".." component; nullopt when it
// would leave the directory it is relative to (absolute, or ".." past its start).
std::optional<std::string> normalized_relative_path(std::string_view relative);

struct FileRead {
  enum class Status { Read, Missing, Symlink, NotRegular, TooLarge, Unreadable };
  Status status = Status::Missing;
  std::string text;   // Read: the file's bytes
  FileStamp stamp;    // Read and TooLarge: of the file as opened
  int error = 0;      // Unreadable: the errno
  // Why it was not read, for a note ("symlink: not followed", "unreadable: Permission denied").
  std::string reason() const;
};

enum class EntryKind { Missing, RegularFile, Directory, Symlink, Other };

// A build description's glob (CMake `file(GLOB)`, setup.py `glob.glob`) that would visit more
// entries than this is left unknown rather than slowing the scan.
inline constexpr size_t kMaxGlobEntries = 20000;

// Whether a path or name holds a shell wildcard (`*`, `?`, `[`): a glob pattern, not a path.
inline bool has_glob_wildcard(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

class SourceTree {
 public:
  explicit SourceTree(std::filesystem::path root);

  // The tree holding `absolute` when it is `relative` beneath a root (a discovered file),
  // else the file's own directory (a file analyzed as if it had another path, e.g. a fixture).
  static SourceTree holding(const std::filesystem::path& absolute, std::string_view relative);

  const std::filesystem::path& root() const { return root_; }

  // The path of `absolute` beneath the root (lexically), or nullopt when it is not beneath it.
  std::optional<std::string> relative_path(const std::filesystem::path& absolute) const;

  // Reads the regular file at `relative` (see normalized_relative_path), of at most `max_size`
  // bytes, following no symlink anywhere on the way; never blocks on a FIFO or opens a device.
  FileRead read(std::string_view relative, uint64_t max_size) const;

  // What is at `relative`, following no symlink (a symlink on the way is Symlink).
  EntryKind kind(std::string_view relative) const;

  // A descriptor of `relative` opened with `flags` (O_CLOEXEC and O_NOFOLLOW added), resolved
  // beneath the root following no symlink; -errno on failure. The caller closes it.
  int open(std::string_view relative, int flags) const;

  // The regular files (not symlinks) in the directory `dir` beneath the root whose names match
  // the shell pattern `name` (fnmatch), in its subdirectories too when `recursive`: their paths
  // beneath the root, sorted. Nullopt when `dir` is not a directory of the tree reached through
  // no symlink, or when the walk would visit more than `max_entries` entries (a build's glob is
  // left unknown rather than slowing the scan).
  std::optional<std::vector<std::string>> glob(std::string_view dir, std::string_view name, bool recursive,
                                               size_t max_entries) const;

 private:
  std::filesystem::path root_;
};

}  // namespace tpulint
