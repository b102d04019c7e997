// What tpulint writes: the files a command line names (`--output FORMAT=FILE`, `--timings FILE`,
// `baseline -o FILE`, `docs --output-dir DIR`) and standard output. Every writer goes through
// here, so that a full disk, a closed pipe, a device, a FIFO or a symbolic link planted in a
// checkout is handled the same way everywhere (docs/ci.md, "Output files").
#pragma once

#include <filesystem>
#include <ostream>
#include <string_view>

namespace tpulint::app {

// Writes `content` to `path`, according to what is there:
// - nothing, or a regular file: a new temporary file is made beside it (O_CREAT | O_EXCL |
//   O_NOFOLLOW, an unpredictable name, mode 0666 less the umask like any new file), written,
//   flushed to disk and renamed over `path`, so that a reader sees the old file or the whole new
//   one. On any failure the temporary file is removed and `path` is left as it was.
// - a symbolic link to a regular file: the link itself is replaced by the new file, never written
//   through. A link that a scanned checkout plants where CI writes its report cannot send the
//   report over a file elsewhere.
// - the file tpulint's standard output or error is open on, even behind links (/dev/stdout,
//   /dev/stderr, /dev/fd/1): written through that descriptor, in its place in the stream.
// - a FIFO, even behind a link (a shell's `>(...)`), or a device named directly (/dev/null, a
//   terminal): written in place, never replaced.
// - a directory, a symbolic link to a device or a directory, or one that leads nowhere (a
//   /dev/stdout whose descriptor is closed): refused.
// Throws std::system_error or std::runtime_error "cannot write 'PATH': REASON", with `path` as
// given, never the temporary file's name.
void write_output_file(const std::filesystem::path& path, std::string_view content);

// Flushes `out`, a command's standard output, and throws std::system_error "cannot write WHAT to
// stdout: REASON" if any of it did not get there (a full disk, a pipe closed while SIGPIPE is
// ignored): a report nobody received must not pass for a clean run. Call it right after the last
// write to `out`, before anything else can change errno.
void finish_stdout(std::ostream& out, std::string_view what);

// For main, at exit: flushes the C standard output and closes its descriptor, as coreutils'
// close_stdout does, so that an error only the last flush or the close reports still fails the
// run. False, with "tpulint: error: cannot write to stdout: REASON" on `err`, when one did.
bool close_stdout(std::ostream& err);

}  // namespace tpulint::app
