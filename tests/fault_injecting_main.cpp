// tpulint with fault injection, built for the reliability tests only (never installed): with
// TPULINT_FAULT_INJECTION=1 in the environment, a file containing one of the markers below
// makes its analysis crash, abort, hang or throw, as a frontend bug would.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "app/cli.h"
#include "app/engine.h"
#include "app/memory_setup.h"

namespace {

void inject_faults(const tpulint::SourceFile& file) {
  static const bool enabled = [] {
    const char* v = std::getenv("TPULINT_FAULT_INJECTION");
    return v && std::string_view(v) == "1";
  }();
  if (!enabled) return;
  const std::string& text = file.text();
  if (text.find("TPULINT_FAULT_CRASH") != std::string::npos) std::raise(SIGSEGV);
  if (text.find("TPULINT_FAULT_ABORT") != std::string::npos) std::abort();
  if (text.find("TPULINT_FAULT_HANG") != std::string::npos)
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (text.find("TPULINT_FAULT_THROW") != std::string::npos) throw std::runtime_error("injected fault");
}

}  // namespace

int main(int argc, char** argv) {
  tpulint::app::set_fault_hook(&inject_faults);
  tpulint::app::set_up_memory();
  return tpulint::app::run_cli(argc, argv, std::cout, std::cerr);
}
