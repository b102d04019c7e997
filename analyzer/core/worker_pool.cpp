#include "core/worker_pool.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <span>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <fstream>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/address_sanitizer.h"

namespace tpulint {

namespace {

using Clock = std::chrono::steady_clock;

// Writes the parts in order, as few system calls as the pipe allows (one, mostly).
bool write_all(int fd, std::span<iovec> parts) {
  for (;;) {
    while (!parts.empty() && parts.front().iov_len == 0) parts = parts.subspan(1);
    if (parts.empty()) return true;
    ssize_t w = writev(fd, parts.data(), int(parts.size()));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    for (size_t n = size_t(w); n > 0;) {  // what was written leaves the parts
      size_t taken = std::min(n, parts.front().iov_len);
      parts.front().iov_base = static_cast<char*>(parts.front().iov_base) + taken;
      parts.front().iov_len -= taken;
      n -= taken;
      if (parts.front().iov_len == 0) parts = parts.subspan(1);
    }
  }
}

bool write_all(int fd, const void* data, size_t n) {
  iovec part{const_cast<void*>(data), n};
  return write_all(fd, std::span(&part, 1));
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
// Indices arrive ahead of need (see kQueueDepth), so the next one is usually already waiting.
[[noreturn]] void worker_main(int in_fd, int out_fd, const std::function<std::string(size_t)>& task) {
  uint64_t index;
  while (read_all(in_fd, &index, sizeof index)) {
    std::string output = task(size_t(index));
    // One write per message: the parent wakes once, not for a header and then its body.
    uint64_t header[2] = {index, output.size()};
    iovec parts[2] = {{header, sizeof header}, {output.data(), output.size()}};
    if (!write_all(out_fd, parts)) break;
  }
  _exit(0);  // no destructors, no atexit handlers: they belong to the parent
}

// How many tasks a worker holds at once: the one it runs and the ones queued in its pipe. With
// one, a worker idled from sending a result until the parent woke up and sent the next index,
// once per file; on a 2-core VM that round trip cost a quarter of a parse-only scan.
constexpr size_t kQueueDepth = 3;

struct Worker {
  pid_t pid = -1;
  int to_child = -1;
  int from_child = -1;
  // The tasks sent to it, in the order it runs them: the first is the one it is working on.
  std::deque<size_t> tasks;
  Clock::time_point deadline;  // of tasks.front()
  std::string buffer;          // bytes received, not yet a whole message
};

// The live workers' process IDs, for the signal handler: it kills them before this process dies.
constexpr size_t kMaxTrackedWorkers = 256;
volatile pid_t g_worker_pids[kMaxTrackedWorkers];

void track_worker(size_t slot, pid_t pid) {
  if (slot < kMaxTrackedWorkers) g_worker_pids[slot] = pid;
}

extern "C" void kill_workers_and_die(int sig) {
  for (size_t i = 0; i < kMaxTrackedWorkers; ++i)
    if (g_worker_pids[i] > 0) kill(g_worker_pids[i], SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};

// In a new worker: die with the parent, read and write no terminal, and no handler of the
// parent's (which would kill the worker's siblings).
void set_up_worker(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);  // the parent died before the line above
  for (int sig : kStopSignals) signal(sig, SIG_DFL);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    // Clang's `#pragma clang __debug dump` writes to standard error, as LLVM's own messages do.
    if (!kAddressSanitizer) dup2(null, STDERR_FILENO);
    close(null);
  }
}

// The resident memory of process `pid`, in bytes (0 if it cannot be read).
uint64_t resident_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

// How often a worker's memory is measured when there is a limit.
constexpr std::chrono::milliseconds kMemoryCheckInterval{100};

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return fmt::format("the analysis crashed (signal {}: {})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("the analysis exited unexpectedly (status {})", WEXITSTATUS(status));
  return "the analysis stopped unexpectedly";
}

}  // namespace

void run_in_workers(size_t count, const WorkerPoolOptions& options, const std::function<std::string(size_t)>& task,
                    const std::function<std::string(size_t, const std::string&)>& on_failure,
                    const std::function<void(size_t, std::string_view)>& on_output) {
  if (count == 0) return;
  // A worker that dies makes writes to its pipe fail with EPIPE rather than kill us.
  // A stop signal kills the workers first. Both set for this call only.
  struct Handlers {
    struct sigaction pipe {}, stop[std::size(kStopSignals)];
    Handlers() {
      struct sigaction ignore {}, kill_all {};
      ignore.sa_handler = SIG_IGN;
      kill_all.sa_handler = kill_workers_and_die;
      sigaction(SIGPIPE, &ignore, &pipe);
      for (size_t i = 0; i < std::size(kStopSignals); ++i) sigaction(kStopSignals[i], &kill_all, &stop[i]);
    }
    ~Handlers() {
      sigaction(SIGPIPE, &pipe, nullptr);
      for (size_t i = 0; i < std::size(kStopSignals); ++i) sigaction(kStopSignals[i], &stop[i], nullptr);
    }
  } handlers;
  const pid_t parent = getpid();

  std::vector<Worker> workers(std::min<size_t>(std::max(1u, options.jobs), count));
  auto spawn = [&](Worker& w) {
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("cannot start a worker process");
    if (pid == 0) {
      set_up_worker(parent);
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
    w = Worker{pid, down[1], up[0], {}, {}, {}};
    track_worker(size_t(&w - workers.data()), pid);
  };
  auto retire = [&](Worker& w, bool kill_it) {
    if (kill_it) kill(w.pid, SIGKILL);
    close(w.to_child);
    close(w.from_child);
    int status = 0;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    track_worker(size_t(&w - workers.data()), 0);
    w.pid = w.to_child = w.from_child = -1;  // polled as fd -1 (ignored) until replaced
    return status;
  };

  // Tasks not yet sent: `next` onwards, and before them the ones a dead worker had queued but
  // not started (they go to another worker, or to its replacement).
  size_t next = 0, done = 0;
  std::vector<size_t> returned;
  auto has_unsent = [&] { return !returned.empty() || next < count; };
  auto take_unsent = [&] {
    if (returned.empty()) return next++;
    size_t i = returned.back();
    returned.pop_back();
    return i;
  };
  auto fill = [&](Worker& w) {
    while (w.tasks.size() < kQueueDepth && has_unsent()) {
      uint64_t index = take_unsent();
      if (!write_all(w.to_child, &index, sizeof index)) {  // it died: the poll loop sees it
        returned.push_back(index);
        return;
      }
      if (w.tasks.empty()) w.deadline = Clock::now() + options.task_timeout;
      w.tasks.push_back(index);
    }
  };
  // The worker is gone (retired): its current task failed for `reason`, its queued ones were not
  // started. A new worker takes its place while tasks are left.
  auto replace = [&](Worker& w, const std::string& reason) {
    if (!w.tasks.empty()) {
      size_t failed = w.tasks.front();
      w.tasks.pop_front();
      on_output(failed, on_failure(failed, reason));
      ++done;
    }
    for (auto it = w.tasks.rbegin(); it != w.tasks.rend(); ++it) returned.push_back(*it);
    w.tasks.clear();
    if (has_unsent()) {
      spawn(w);
      fill(w);
    }
  };
  for (Worker& w : workers) spawn(w);
  if (options.started) options.started();
  for (Worker& w : workers) fill(w);

  std::vector<pollfd> fds;
  Clock::time_point next_memory_check = Clock::now() + kMemoryCheckInterval;
  while (done < count) {
    fds.clear();
    int timeout_ms = -1;
    auto now = Clock::now();
    auto wake_by = [&](Clock::time_point t) {
      auto left = std::max<long>(std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count(), 0);
      timeout_ms = timeout_ms < 0 ? int(left) : std::min(timeout_ms, int(left));
    };
    for (Worker& w : workers) {
      fds.push_back({w.from_child, POLLIN, 0});
      if (!w.tasks.empty() && options.task_timeout.count() > 0) wake_by(w.deadline);
      if (!w.tasks.empty() && options.memory_limit_bytes > 0) wake_by(next_memory_check);
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
          // Whole messages: [index][length][bytes]. A message finishes the worker's current task.
          bool finished = false, damaged = false;
          size_t consumed = 0;  // bytes of the buffer taken as messages
          while (w.buffer.size() - consumed >= 16) {
            uint64_t header[2];
            std::memcpy(header, w.buffer.data() + consumed, sizeof header);
            // A worker answers its tasks in the order it was sent them; anything else is a
            // worker whose memory is damaged, which must not reach this process's.
            if (w.tasks.empty() || header[0] != w.tasks.front()) {
              damaged = true;
              break;
            }
            if (w.buffer.size() - consumed - 16 < header[1]) break;
            // Handed over from the buffer: decoded as it arrives, never stored whole.
            on_output(w.tasks.front(), std::string_view(w.buffer).substr(consumed + 16, header[1]));
            consumed += 16 + header[1];
            ++done;
            w.tasks.pop_front();
            w.deadline = now + options.task_timeout;  // it starts the next one as it sends this
            finished = true;
          }
          // Only an incomplete message stays: the buffer holds at most one message, not the run's output.
          w.buffer.erase(0, consumed);
          if (damaged) {
            retire(w, true);
            replace(w, "the analysis sent a damaged result");
          } else if (finished) {
            fill(w);
          }
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        // End of file: the worker died.
        replace(w, describe_status(retire(w, false)));
        continue;
      }
      if (w.pid > 0 && !w.tasks.empty() && options.task_timeout.count() > 0 && now >= w.deadline) {
        retire(w, true);
        replace(w, fmt::format("the analysis took longer than --file-timeout ({} s)",
                               options.task_timeout.count() / 1000.0));
      }
    }
    if (options.memory_limit_bytes > 0 && now >= next_memory_check) {
      next_memory_check = now + kMemoryCheckInterval;
      for (Worker& w : workers) {
        if (w.pid <= 0 || w.tasks.empty() || resident_bytes(w.pid) <= options.memory_limit_bytes) continue;
        retire(w, true);
        replace(w, fmt::format("the analysis used more than --max-worker-memory ({} MB)",
                               options.memory_limit_bytes >> 20));
      }
    }
    // A worker's death can hand tasks back after the others were filled; an idle worker takes them.
    if (!returned.empty())
      for (Worker& w : workers)
        if (w.pid > 0) fill(w);
  }
  for (Worker& w : workers)
    if (w.pid > 0) retire(w, false);  // closing its input ends its loop
}

}  // namespace tpulint
