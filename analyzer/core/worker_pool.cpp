#include "core/worker_pool.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tpulint {

namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

// The child's loop: read a task index, run it, send [index][length][output]; exit on EOF.
[[noreturn]] void worker_main(int in_fd, int out_fd, const std::function<std::string(size_t)>& task) {
  uint64_t index;
  while (read_all(in_fd, &index, sizeof index)) {
    std::string output = task(size_t(index));
    uint64_t header[2] = {index, output.size()};
    if (!write_all(out_fd, header, sizeof header) || !write_all(out_fd, output.data(), output.size())) break;
  }
  _exit(0);  // no destructors, no atexit handlers: they belong to the parent
}

struct Worker {
  pid_t pid = -1;
  int to_child = -1;
  int from_child = -1;
  long task = -1;  // the index it is working on, or -1
  Clock::time_point deadline;
  std::string buffer;  // bytes received, not yet a whole message
};

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return fmt::format("the analysis crashed (signal {}: {})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("the analysis exited unexpectedly (status {})", WEXITSTATUS(status));
  return "the analysis stopped unexpectedly";
}

}  // namespace

std::vector<std::string> run_in_workers(size_t count, const WorkerPoolOptions& options,
                                        const std::function<std::string(size_t)>& task,
                                        const std::function<std::string(size_t, const std::string&)>& on_failure) {
  std::vector<std::string> outputs(count);
  if (count == 0) return outputs;
  // A worker that dies makes writes to its pipe fail with EPIPE rather than kill us.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);

  std::vector<Worker> workers(std::min<size_t>(std::max(1u, options.jobs), count));
  auto spawn = [&](Worker& w) {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("cannot start a worker process");
    if (pid == 0) {
      close(down[1]);
      close(up[0]);
      // The other workers' pipe ends are inherited too: keeping the write end of a sibling's
      // input would stop it from ever seeing the end of its input.
      for (const Worker& other : workers)
        if (&other != &w && other.pid > 0) {
          close(other.to_child);
          close(other.from_child);
        }
      worker_main(down[0], up[1], task);
    }
    close(down[0]);
    close(up[1]);
    w = Worker{pid, down[1], up[0], -1, {}, {}};
  };
  auto retire = [&](Worker& w, bool kill_it) {
    if (kill_it) kill(w.pid, SIGKILL);
    close(w.to_child);
    close(w.from_child);
    int status = 0;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    w.pid = -1;
    return status;
  };

  size_t next = 0, done = 0;
  for (Worker& w : workers) spawn(w);

  auto assign = [&](Worker& w) {
    if (next >= count) return;
    uint64_t index = next;
    if (!write_all(w.to_child, &index, sizeof index)) return;  // it died: the poll loop sees it
    w.task = long(next++);
    w.deadline = Clock::now() + options.task_timeout;
  };
  auto fail_task = [&](Worker& w, const std::string& reason) {
    outputs[size_t(w.task)] = on_failure(size_t(w.task), reason);
    ++done;
    w.task = -1;
  };
  for (Worker& w : workers) assign(w);

  while (done < count) {
    std::vector<pollfd> fds;
    int timeout_ms = -1;
    auto now = Clock::now();
    for (Worker& w : workers) {
      fds.push_back({w.from_child, POLLIN, 0});
      if (w.task >= 0 && options.task_timeout.count() > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(w.deadline - now).count();
        timeout_ms = timeout_ms < 0 ? int(std::max<long>(left, 0)) : std::min(timeout_ms, int(std::max<long>(left, 0)));
      }
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) throw std::runtime_error("poll failed");
    now = Clock::now();
    for (size_t k = 0; k < workers.size(); ++k) {
      Worker& w = workers[k];
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        ssize_t n = read(w.from_child, buf, sizeof buf);
        if (n > 0) {
          w.buffer.append(buf, size_t(n));
          // Whole messages: [index][length][bytes].
          while (w.buffer.size() >= 16) {
            uint64_t header[2];
            std::memcpy(header, w.buffer.data(), sizeof header);
            if (w.buffer.size() < 16 + header[1]) break;
            outputs[header[0]] = w.buffer.substr(16, header[1]);
            w.buffer.erase(0, 16 + header[1]);
            ++done;
            w.task = -1;
            assign(w);
          }
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        // End of file: the worker died.
        int status = retire(w, false);
        if (w.task >= 0) fail_task(w, describe_status(status));
        if (done < count) {
          spawn(w);
          assign(w);
        }
        continue;
      }
      if (w.task >= 0 && options.task_timeout.count() > 0 && now >= w.deadline) {
        retire(w, true);
        fail_task(w, fmt::format("the analysis took longer than --file-timeout ({} s)",
                                 options.task_timeout.count() / 1000.0));
        spawn(w);
        assign(w);
      }
    }
  }
  for (Worker& w : workers)
    if (w.pid > 0) retire(w, false);  // closing its input ends its loop
  sigaction(SIGPIPE, &previous, nullptr);
  return outputs;
}

}  // namespace tpulint
