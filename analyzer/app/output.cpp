#include "app/output.h"

#include "core/file_replace.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tpulint::app {

namespace {

[[noreturn]] void fail(const fs::path& path, int error) {
  throw std::system_error(error, std::generic_category(), fmt::format("cannot write '{}'", path.string()));
}

[[noreturn]] void refuse(const fs::path& path, std::string_view why) {
  throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), why));
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// STDOUT_FILENO or STDERR_FILENO when that descriptor is open on `target`, else -1.
int own_stream(const struct stat& target) {
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat open_file;
    if (::fstat(fd, &open_file) == 0 && same_file(open_file, target)) return fd;
  }
  return -1;
}

void write_to(int fd, const fs::path& path, std::string_view content) {
  if (!write_all(fd, content)) fail(path, errno);
}

// `follow`: whether a symbolic link at `path` may be followed (it was checked to lead to a FIFO).
void write_in_place(const fs::path& path, bool follow, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0) fail(path, errno);
  struct stat opened;
  if (::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode)) {
    // It became a regular file after it was looked at: never write into one in place.
    ::close(fd);
    return replace_file(path, content);
  }
  bool ok = write_all(fd, content);
  int error = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (!ok) fail(path, error);
}

}  // namespace

void write_output_file(const fs::path& path, std::string_view content) {
  struct stat entry;
  if (::lstat(path.c_str(), &entry) != 0) {
    if (errno != ENOENT) fail(path, errno);
    return replace_file(path, content);
  }
  if (S_ISREG(entry.st_mode)) return replace_file(path, content);
  if (S_ISDIR(entry.st_mode)) fail(path, EISDIR);
  if (!S_ISLNK(entry.st_mode)) return write_in_place(path, false, content);

  struct stat target;
  if (::stat(path.c_str(), &target) != 0) {
    // Never replaced: it may be /dev/stdout with standard output closed.
    refuse(path, "it is a symbolic link that leads nowhere");
  }
  if (int fd = own_stream(target); fd >= 0) return write_to(fd, path, content);
  if (S_ISREG(target.st_mode)) return replace_file(path, content);
  if (S_ISFIFO(target.st_mode)) return write_in_place(path, true, content);
  refuse(path, "it is a symbolic link to a device or a directory (name the target itself)");
}

void finish_stdout(std::ostream& out, std::string_view what) {
  out.flush();
  if (out) return;
  // The stream stops writing at its first failure, so errno is still that failure's.
  throw std::system_error(errno ? errno : EIO, std::generic_category(), fmt::format("cannot write {} to stdout", what));
}

bool close_stdout(std::ostream& err) {
  bool ok = std::fflush(stdout) == 0 && !std::ferror(stdout);
  // EBADF: standard output was closed from the start and nothing was written to it.
  if (ok && ::close(STDOUT_FILENO) != 0 && errno != EBADF) ok = false;
  if (!ok) err << fmt::format("tpulint: error: cannot write to stdout: {}\n", std::strerror(errno ? errno : EIO));
  return ok;
}

}  // namespace tpulint::app
