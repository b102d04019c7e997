// How code reached from several places takes its role from them: the hot path when any of them is
// on it, else the loop's per-step code when any of them is (an optimizer's `step`, a trainer's hook),
// unknown when any is unknown, else the excused role they share. A call from a training loop's body
// is the step's: its callers vote HotPath for it.
// One rule for a function's callers in its own file (python/semantic) and in other modules
// (core/project_links).
#pragma once

#include "core/types.h"

namespace tpulint {

class RoleVote {
 public:
  void take(Context c) {
    any_ = true;
    if (c == Context::HotPath) hot_ = true;
    else if (c == Context::Loop) loop_ = true;
    else if (excused_rank(c) == 0) unknown_ = true;
    else if (excused_rank(c) > excused_rank(excused_)) excused_ = c;
  }
  bool any() const { return any_; }
  // Unknown when nothing was taken.
  Context role() const {
    return !any_ ? Context::Unknown
           : hot_ ? Context::HotPath
           : loop_ ? Context::Loop
           : unknown_ ? Context::Unknown
                      : excused_;
  }

 private:
  // Among code that does not run per step, the host data path is the likeliest to matter to a
  // reader, then evaluation, then one-time code and tests; guarded last, since code also reached
  // without a guard runs on a TPU.
  static int excused_rank(Context c) {
    switch (c) {
      case Context::Host: return 5;
      case Context::Eval: return 4;
      case Context::OneTime: return 3;
      case Context::Test: return 2;
      case Context::Guarded: return 1;
      default: return 0;
    }
  }
  bool any_ = false, hot_ = false, loop_ = false, unknown_ = false;
  Context excused_ = Context::Unknown;
};

}  // namespace tpulint
