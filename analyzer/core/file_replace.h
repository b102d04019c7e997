// Replacing a file's contents the way a reader never sees half of them and nothing planted
// beside it can redirect the write: the report files a command line names, and the result
// cache (a directory CI jobs may share, restore and save).
#pragma once

#include <filesystem>
#include <string_view>

namespace tpulint {

// Writes `content` to a new temporary file beside `path` (O_CREAT | O_EXCL | O_NOFOLLOW, an
// unpredictable name, mode 0666 less the umask like any new file), flushes it to disk when
// `sync`, and renames it over `path`, which is replaced (a symbolic link there is replaced
// itself, never written through). On any failure the temporary file is removed, `path` is left
// as it was, and std::system_error "cannot write 'PATH'" is thrown with the errno.
void replace_file(const std::filesystem::path& path, std::string_view content, bool sync = true);

// Writes all of `content` to `fd`, continuing short writes; false, with errno set, on failure.
bool write_all(int fd, std::string_view content);

}  // namespace tpulint
