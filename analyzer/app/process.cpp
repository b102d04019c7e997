#include "app/process.h"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tpulint::app {

std::optional<std::filesystem::path> find_executable(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t colon = dirs.find(':', start);
    if (colon == std::string_view::npos) colon = dirs.size();
    std::filesystem::path dir(dirs.substr(start, colon - start));
    start = colon + 1;
    if (!dir.is_absolute()) continue;
    std::filesystem::path candidate = dir / name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::string& input) {
  ProcessResult r;
  if (argv.empty() || !std::filesystem::path(argv[0]).is_absolute()) {
    r.err = "not an absolute path to a program";
    return r;
  }
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return r;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  if (pipe2(in_pipe, O_CLOEXEC) != 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  if (spawned != 0) {
    for (int fd : {out_pipe[0], err_pipe[0], in_pipe[1]}) close(fd);
    r.err = std::string("cannot run '") + argv[0] + "'";
    return r;
  }

  // Feed the input and read both outputs until they close, so that no pipe fills up and blocks
  // the child while this process waits on another.
  // A child that exits before reading all its input makes a write fail with EPIPE rather than
  // kill this process.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  int in_fd = in_pipe[1];
  size_t written = 0;
  if (input.empty()) {
    close(in_fd);
    in_fd = -1;
  }
  std::array<pollfd, 3> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {in_fd, POLLOUT, 0}}};
  std::array<std::string*, 2> sinks{&r.out, &r.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0 || fds[2].fd >= 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = (fds[2].revents & POLLOUT) ? write(fds[2].fd, input.data() + written, input.size() - written) : -1;
      if (n > 0) written += size_t(n);
      if ((n < 0 && errno != EINTR && errno != EAGAIN) || written == input.size()) {
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, size_t(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (fds[2].fd >= 0) close(fds[2].fd);
  sigaction(SIGPIPE, &previous, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tpulint::app
