// A pool of forked worker processes, so that a crash (a signal, an abort, an assertion) or a
// hang inside a frontend on one file costs that file only: the run goes on with a fresh
// worker and every other file's results.
//
// Workers are forked from the calling process before any thread starts; each runs tasks one
// at a time and sends back a string. The parent must be single-threaded when it calls this.
// A worker reads nothing from the terminal (its standard input is /dev/null), writes nothing to
// it (standard output and error are /dev/null, but in sanitizer builds, whose reports go to
// standard error), and dies with this process: the kernel kills it when this process ends
// (PR_SET_PDEATHSIG), and SIGTERM, SIGINT or SIGHUP to this process kill the workers first.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint {

struct WorkerPoolOptions {
  unsigned jobs = 1;
  std::chrono::milliseconds task_timeout{0};  // 0: no limit
  // A worker whose resident memory grows past this is killed, and its task fails (0: no limit).
  // Measured by this process (from /proc) a few times a second, so that what the worker maps
  // but does not touch (a thread's stack, Clang's libraries) does not count.
  uint64_t memory_limit_bytes = 0;
  // Called in this process once the first workers are forked, before any task is sent: what it
  // changes in this process, they do not inherit.
  std::function<void()> started;
};

// Runs task(i) for every i in [0, count) in worker processes, and calls on_output(i, output)
// in this process as each output arrives (in no particular order; the view is valid during the
// call only), once per i. When a worker dies during task i, or task i runs past the timeout
// (the worker is killed), the output of i is on_failure(i, reason) instead, computed here.
void run_in_workers(size_t count, const WorkerPoolOptions& options, const std::function<std::string(size_t)>& task,
                    const std::function<std::string(size_t, const std::string&)>& on_failure,
                    const std::function<void(size_t, std::string_view)>& on_output);

}  // namespace tpulint
