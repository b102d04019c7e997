#include "cli_runner.h"

#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "json_schema.h"

namespace fs = std::filesystem;

namespace tpulint::testing {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tpulint_binary() {
  const char* other = std::getenv("TPULINT_TEST_BINARY");
  return other && *other ? other : TPULINT_BINARY;
}

CommandResult run_tpulint(const std::string& args, const std::string& cwd, const std::string& env) {
  return run_program(tpulint_binary(), args, cwd, env);
}

CommandResult run_program(const std::string& binary, const std::string& args, const std::string& cwd,
                          const std::string& env) {
  TempDir tmp;
  std::string err_path = tmp.str("stderr");
  // A cache of its own per run keeps tests independent (tests of the cache pass --cache-dir).
  std::string cmd = "cd '" + cwd + "' && " + env + " XDG_CACHE_HOME='" + tmp.str("cache") + "' '" + binary + "' " + args +
                    " 2>'" + err_path + "'";
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 65536> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err_path);
  return r;
}

bool have_programs(std::initializer_list<const char*> programs) {
  for (const char* p : programs)
    if (std::system(("command -v '" + std::string(p) + "' >/dev/null 2>&1").c_str()) != 0) {
      WARN("tpulint-test-skipped: '" << p << "' is not on PATH");
      return false;
    }
  return true;
}

nlohmann::json scan_report(const TempDir& dir, const std::string& options) {
  CommandResult r = run_tpulint("scan '" + dir.str() + "' --format json --exit-zero " + options);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::string errors = schema_errors(kReportSchema, r.out);
  INFO(errors);
  CHECK(errors.empty());
  return nlohmann::json::parse(r.out);
}

}  // namespace tpulint::testing
