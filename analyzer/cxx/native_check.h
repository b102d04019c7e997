// The shape of a C/C++/CUDA check: it reads the facts the Clang frontend recorded for a file
// (its declarative match is which facts it reads) and reports through a NativeContext.
#pragma once

#include <span>
#include <string>

#include "core/check_info.h"
#include "core/finding.h"
#include "cxx/native_facts.h"

namespace tpulint::cxx {

class NativeContext {
 public:
  NativeContext(const NativeFile& facts, FindingSink& sink) : facts_(facts), sink_(sink) {}
  const NativeFile& facts() const { return facts_; }
  const SourceFile& file() const { return sink_.file(); }

  Finding& report(ByteSpan at, std::string_view message, std::string_view hint = {}, std::string_view subject = {}) {
    return sink_.add(*check_, at, message, hint, subject);
  }

  // A line the port touches for this check's work item named `subject` (core/finding.h: TouchLine).
  void touch(ByteSpan at, std::string_view subject) { sink_.touch(*check_, at, subject); }

  void set_check(const CheckInfo* check) { check_ = check; }  // the analyzer's bookkeeping

 private:
  const NativeFile& facts_;
  FindingSink& sink_;
  const CheckInfo* check_ = nullptr;
};

class NativeCheck {
 public:
  virtual ~NativeCheck() = default;
  // Called once per analyzed C/C++/CUDA file. Must not throw.
  virtual void check(const NativeFile& facts, NativeContext& ctx) const = 0;
};

struct NativeCheckEntry {
  const CheckInfo* info;
  const NativeCheck* check;
};

}  // namespace tpulint::cxx
