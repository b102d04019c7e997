#include "json_schema.h"

#include <array>
#include <cstdio>
#include <sys/wait.h>

#include "temp_dir.h"

namespace tpulint::testing {

std::string schema_errors(const std::string& schema_path, const std::string& document) {
  TempDir dir;
  std::string doc_path = dir.write("document.json", document).string();
  std::string cmd = "/usr/bin/python3 '" TPULINT_SOURCE_DIR "/tests/validate_json.py' '" + schema_path + "' '" +
                    doc_path + "' 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return "cannot run the validator";
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = pclose(pipe);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0) return "";
  return out.empty() ? "validator exited with " + std::to_string(code) : out;
}

}  // namespace tpulint::testing
