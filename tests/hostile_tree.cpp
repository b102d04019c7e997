#include "hostile_tree.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace tpulint::testing {

HostileTree write_hostile_tree(const TempDir& dir) {
  HostileTree t{dir.path() / "repo", dir.path() / "outside", dir.str("outside/ran")};
  const std::string repo = t.repo.string(), outside = t.outside.string();
  dir.write("outside/secret.h", "#define SECRET 1\n");
  dir.write("outside/rules", "*.py\n");
  dir.write("outside/response.rsp", "-DFROM_A_RESPONSE_FILE\n");
  dir.write("outside/sources/k.cu", "__global__ void far(float* x) {}\n");

  // A committed base, then changes: the scan runs in --diff mode too.
  dir.write("repo/pkg/model.py", "import torch\nx = torch.nonzero(y)\n");
  std::string git = "git -C '" + repo + "' -c user.name=t -c user.email=t@example.com ";
  if (std::system((git + "init -q && " + git + "add -A && " + git + "commit -q -m base").c_str()) != 0)
    throw std::runtime_error("git init failed");
  dir.write("repo/pkg/model.py", "import torch\nx = torch.nonzero(y)\nz = torch.unique(x)\n");

  // git: filters, drivers, an fsmonitor, settings that change git diff's output, and the
  // repository's own `git` and `tar`, which an empty element of PATH names.
  std::ofstream(repo + "/.git/config", std::ios::app)
      << "[filter \"evil\"]\n\tclean = touch " << t.marker << "-clean; cat\n\tsmudge = touch " << t.marker
      << "-smudge; cat\n\tprocess = touch " << t.marker << "-process\n"
      << "[diff]\n\tmnemonicPrefix = true\n\tnoprefix = true\n\texternal = touch " << t.marker << "-external\n"
      << "[core]\n\tfsmonitor = touch " << t.marker << "-fsmonitor\n\thooksPath = " << outside << "\n";
  dir.write("repo/.gitattributes", "*.py filter=evil diff=evil\n*.cu filter=evil\n");
  for (const std::string tool : {"git", "tar"}) {
    dir.write("repo/" + tool, "#!/bin/sh\ntouch " + t.marker + "-" + tool + "\nexit 1\n");
    fs::permissions(repo + "/" + tool, fs::perms::owner_all);
  }

  // Ignore files and a source file that link out of the tree; a FIFO; a directory link.
  dir.symlink(outside + "/rules", "repo/pkg/.gitignore");
  dir.mkdir("repo/.git/info");
  fs::remove(repo + "/.git/info/exclude");
  dir.symlink(outside + "/rules", "repo/.git/info/exclude");
  dir.symlink("/etc/passwd", "repo/pkg/passwd.py");
  dir.symlink(outside, "repo/src/linked", true);
  if (mkfifo((repo + "/src/fifo.h").c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
  if (mkfifo((repo + "/pkg/fifo.py").c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");

  // C++: includes of files outside the tree, of devices and of standard input.
  std::string climb;
  for (int i = 0; i < 20; ++i) climb += "../";
  dir.write("repo/src/k.cu", "#include \"" + outside + "/secret.h\"\n#include \"" + climb + "etc/shadow\"\n"
                             "#include \"/etc/passwd\"\n#include </dev/zero>\n#include </dev/urandom>\n"
                             "#include </dev/stdin>\n#include \"fifo.h\"\n#include \"linked/secret.h\"\n"
                             "#pragma clang __debug macro __FILE__\n"
                             "__global__ void scale(float* x) { x[threadIdx.x] *= 2; }\n"
                             "void launch(float* x) { scale<<<1, 32>>>(x); }\n");
  // A macro bomb: ten to the ninth tokens.
  std::string bomb = "#define A0 x x x x x x x x x x\n";
  for (int i = 1; i <= 9; ++i) {
    bomb += "#define A" + std::to_string(i);
    for (int k = 0; k < 10; ++k) bomb += " A" + std::to_string(i - 1);
    bomb += "\n";
  }
  dir.write("repo/src/bomb.cu", bomb + "int y[] = {A9};\n");

  // A compile database whose command would write files, load a plugin and read a response file.
  const std::string v = outside;
  std::vector<std::string> args = {
      "clang++", "-x", "c++", "-Xclang", "-dependency-file", "-Xclang", v + "/bashrc", "-MD", "-MF", v + "/depfile",
      "-Xclang", "-serialize-diagnostic-file", "-Xclang", v + "/diagnostics", "-fmodules",
      "-fmodules-cache-path=" + v + "/modules", "-Wp,-MD," + v + "/wp", "-o", v + "/out.o",
      "-fplugin=" + v + "/plugin.so", "@" + v + "/response.rsp", "-I" + v, "--sysroot=" + v, "-c",
      repo + "/src/k.cu"};
  nlohmann::json db = nlohmann::json::array({{{"directory", repo}, {"file", repo + "/src/k.cu"}, {"arguments", args}}});
  dir.write("repo/build/compile_commands.json", db.dump());

  // CMake: a glob through a link to a directory outside.
  dir.write("repo/CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\n"
                                   "file(GLOB_RECURSE SRCS ${CMAKE_CURRENT_SOURCE_DIR}/src/linked/*.cu)\n"
                                   "add_library(ext SHARED ${SRCS})\n");
  // A file name that would forge a line of the text report.
  dir.write("repo/pkg/evil\x1b[2K\rerror TPU101.py", "import torch\nx = torch.nonzero(y)\n");
  return t;
}

}  // namespace tpulint::testing
