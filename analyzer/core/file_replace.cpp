#include "core/file_replace.h"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <random>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tpulint {

namespace {

[[noreturn]] void fail(const fs::path& path, int error) {
  throw std::system_error(error, std::generic_category(), fmt::format("cannot write '{}'", path.string()));
}

// A new file beside `path` that nothing else made: O_EXCL fails on any name that exists, a
// symbolic link included, and the random name cannot be planted ahead. The kernel applies the
// umask to 0666, as for any file a program creates.
int create_temporary(const fs::path& path, fs::path& temporary) {
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    temporary = path;
    temporary += fmt::format(".tmp-{:08x}{:08x}", random(), random());
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

}  // namespace

bool write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(size_t(n));
  }
  return true;
}

void replace_file(const fs::path& path, std::string_view content, bool sync) {
  fs::path temporary;
  int fd = create_temporary(path, temporary);
  if (fd < 0) fail(path, errno);
  bool ok = write_all(fd, content) && (!sync || ::fsync(fd) == 0);
  int error = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && ::rename(temporary.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (!ok) {
    ::unlink(temporary.c_str());
    fail(path, error);
  }
}

}  // namespace tpulint
