// The pool of forked workers: every task's output comes back by index, whatever the number of
// workers; a task that crashes or hangs costs that task only, including the tasks queued
// behind it in the same worker, which another worker (or the replacement) runs.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/worker_pool.h"

using namespace tpulint;

namespace {

std::string expected_output(size_t i) {
  // Some outputs are larger than a pipe's buffer and than the parent's read size, so that a
  // message arrives in pieces; some are empty.
  if (i % 17 == 3) return std::string(200'000 + i, char('a' + i % 26));
  if (i % 11 == 4) return {};
  return "result " + std::to_string(i);
}

std::string failure_output(size_t i, const std::string& reason) { return "failed " + std::to_string(i) + ": " + reason; }

// The outputs by index; each index must be handed over exactly once.
template <class Task>
std::vector<std::string> run(size_t count, WorkerPoolOptions options, const Task& task) {
  std::vector<std::string> outputs(count);
  std::vector<int> times(count, 0);
  run_in_workers(count, options, task, failure_output, [&](size_t i, std::string_view output) {
    REQUIRE(i < count);
    ++times[i];
    outputs[i] = output;
  });
  for (size_t i = 0; i < count; ++i) {
    INFO("task " << i);
    CHECK(times[i] == 1);
  }
  return outputs;
}

// Every output is the task's own, but the failed task's, which is on_failure's with `reason`.
void check_outputs(const std::vector<std::string>& outputs, size_t failed, const std::string& reason) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    INFO("task " << i);
    CHECK(outputs[i] == (i == failed ? failure_output(i, reason) : expected_output(i)));
  }
}

}  // namespace

TEST_CASE("every task's output comes back at its index, with any number of workers", "[core][workers]") {
  for (unsigned jobs : {1u, 2u, 3u, 8u}) {
    INFO("jobs " << jobs);
    for (size_t count : {size_t(1), size_t(2), size_t(5), size_t(120)}) {
      INFO("count " << count);
      auto outputs = run(count, {jobs, {}, 0, {}}, expected_output);
      REQUIRE(outputs.size() == count);
      for (size_t i = 0; i < count; ++i) CHECK(outputs[i] == expected_output(i));
    }
  }
  CHECK(run(0, {2, {}, 0, {}}, expected_output).empty());
}

TEST_CASE("a task that crashes costs that task only, not those queued behind it", "[core][workers]") {
  // Tasks 5 and 6 crash in a row, then 40 and the last one: a worker holds several tasks at
  // once, so each crash leaves queued tasks that must still be run.
  const std::set<size_t> crashing = {5, 6, 40, 79};
  auto task = [&](size_t i) {
    if (crashing.count(i)) std::raise(SIGSEGV);
    if (i == 41) std::abort();
    return expected_output(i);
  };
  for (unsigned jobs : {1u, 2u, 3u}) {
    INFO("jobs " << jobs);
    auto outputs = run(80, {jobs, {}, 0, {}}, task);
    REQUIRE(outputs.size() == 80);
    for (size_t i = 0; i < 80; ++i) {
      INFO("task " << i);
      if (crashing.count(i))
        CHECK(outputs[i] == failure_output(i, "the analysis crashed (signal 11: Segmentation fault)"));
      else if (i == 41)
        CHECK(outputs[i] == failure_output(i, "the analysis crashed (signal 6: Aborted)"));
      else
        CHECK(outputs[i] == expected_output(i));
    }
  }
}

TEST_CASE("a task that exits its worker is reported, and the tasks after it run", "[core][workers]") {
  auto task = [](size_t i) {
    if (i == 2) std::_Exit(3);
    return expected_output(i);
  };
  check_outputs(run(10, {1, {}, 0, {}}, task), 2, "the analysis exited unexpectedly (status 3)");
}

TEST_CASE("a task past the time limit is stopped, the tasks queued behind it run", "[core][workers]") {
  auto task = [](size_t i) {
    if (i == 1) std::this_thread::sleep_for(std::chrono::hours(1));
    return expected_output(i);
  };
  for (unsigned jobs : {1u, 2u}) {
    INFO("jobs " << jobs);
    check_outputs(run(12, {jobs, std::chrono::milliseconds(300), 0, {}}, task), 1,
                  "the analysis took longer than --file-timeout (0.3 s)");
  }
}

TEST_CASE("the time limit is per task, not per batch of queued tasks", "[core][workers]") {
  // Six tasks of 150 ms each on one worker take 0.9 s in all, longer than the 0.5 s limit;
  // none of them alone does, so none may be stopped.
  auto task = [](size_t i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    return expected_output(i);
  };
  check_outputs(run(6, {1, std::chrono::milliseconds(500), 0, {}}, task), SIZE_MAX, "");
}

TEST_CASE("a worker that sends a result for a task it was not given is stopped", "[core][workers]") {
  // Task 3 writes a message for task 999 straight into its result pipe (found among its open
  // descriptors past stderr: the only one open for writing), as damaged memory could.
  auto task = [](size_t i) {
    if (i == 3) {
      for (int fd = 3; fd < 64; ++fd) {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_ACCMODE) != O_WRONLY) continue;
        uint64_t header[2] = {999, 0};
        if (write(fd, header, sizeof header) != ssize_t(sizeof header)) std::_Exit(1);
      }
      std::this_thread::sleep_for(std::chrono::hours(1));
    }
    return expected_output(i);
  };
  for (unsigned jobs : {1u, 2u}) {
    INFO("jobs " << jobs);
    // The time limit only turns a regression (the bad message taken as task 3's output, the
    // sleeping worker left to run) into a failure rather than a hang.
    check_outputs(run(10, {jobs, std::chrono::seconds(20), 0, {}}, task), 3, "the analysis sent a damaged result");
  }
}

// The hook runs here once the workers exist: what it changes, they never see (the scan stops
// asking for huge pages in the parent this way, while its workers keep theirs).
int g_changed_after_start = 0;

TEST_CASE("started runs once in the parent, after the workers are forked and before any output", "[core][workers]") {
  for (unsigned jobs : {1u, 2u}) {
    INFO("jobs " << jobs);
    g_changed_after_start = 0;
    int calls = 0;
    size_t outputs_before_start = 0, outputs = 0;
    WorkerPoolOptions options{jobs, {}, 0, [&] {
                                ++calls;
                                outputs_before_start = outputs;
                                g_changed_after_start = 1;
                              }};
    run_in_workers(
        20, options, [](size_t i) { return std::to_string(i) + ":" + std::to_string(g_changed_after_start); },
        failure_output,
        [&](size_t i, std::string_view output) {
          ++outputs;
          CHECK(output == std::to_string(i) + ":0");  // the worker was forked before the change
        });
    CHECK(calls == 1);
    CHECK(outputs_before_start == 0);
    CHECK(outputs == 20);
    CHECK(g_changed_after_start == 1);
  }
}

// Issue 34: workers inherited the parent's standard input, so a file read as `/dev/stdin` (or a
// frontend reading fd 0) took the user's terminal or the input of a CI step.
TEST_CASE("a worker reads nothing of the parent's standard input and writes nothing to its output",
          "[worker-pool]") {
  int parent_in[2], parent_out[2];
  REQUIRE(pipe(parent_in) == 0);
  REQUIRE(pipe(parent_out) == 0);
  REQUIRE(write(parent_in[1], "the parent's input", 18) == 18);
  close(parent_in[1]);
  const int saved_in = dup(STDIN_FILENO), saved_out = dup(STDOUT_FILENO);
  dup2(parent_in[0], STDIN_FILENO);
  dup2(parent_out[1], STDOUT_FILENO);
  auto outputs = run(2, {1, {}, 0, {}}, [](size_t) {
    char buf[64];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    (void)!write(STDOUT_FILENO, "from a worker", 13);
    return n < 0 ? std::string("error") : std::string(buf, size_t(n));
  });
  dup2(saved_in, STDIN_FILENO);
  dup2(saved_out, STDOUT_FILENO);
  close(saved_in);
  close(saved_out);
  close(parent_out[1]);
  char buf[64];
  CHECK(read(parent_out[0], buf, sizeof buf) == 0);  // nothing written to the parent's output
  close(parent_out[0]);
  close(parent_in[0]);
  CHECK(outputs == std::vector<std::string>{"", ""});  // end of file at once: /dev/null
}

// Issue 34: killing tpulint left its worker running (and a macro bomb growing).
TEST_CASE("workers die with the parent, whether it is killed or stopped by a signal", "[worker-pool]") {
  for (int sig : {SIGKILL, SIGTERM, SIGINT}) {
    INFO("signal " << sig);
    int report[2];
    REQUIRE(pipe(report) == 0);
    pid_t parent = fork();
    REQUIRE(parent >= 0);
    if (parent == 0) {
      // The parent of the pool: its worker sends its pid up the pipe, then hangs.
      close(report[0]);
      run_in_workers(
          1, {1, {}, 0, {}},
          [&](size_t) -> std::string {
            pid_t self = getpid();
            (void)!write(report[1], &self, sizeof self);
            for (;;) pause();
          },
          failure_output, [](size_t, std::string_view) {});
      _exit(0);
    }
    close(report[1]);
    pid_t worker = 0;
    REQUIRE(read(report[0], &worker, sizeof worker) == sizeof worker);
    close(report[0]);
    REQUIRE(kill(parent, sig) == 0);
    int status = 0;
    REQUIRE(waitpid(parent, &status, 0) == parent);
    CHECK(WIFSIGNALED(status));
    // The worker is gone (or a zombie waiting for init) within a few seconds.
    bool gone = false;
    for (int tries = 0; tries < 200 && !gone; ++tries) {
      std::ifstream stat("/proc/" + std::to_string(worker) + "/stat");
      std::string pid, name, state;
      gone = !(stat >> pid >> name >> state) || state == "Z" || state == "X";
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    CHECK(gone);
    if (!gone) kill(worker, SIGKILL);
  }
}
