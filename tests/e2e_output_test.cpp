// End-to-end: where reports go, and what a hostile repository can put in them. The files a
// command line names (--output, --timings, `baseline -o`) whatever is at their path: a FIFO, a
// device, standard output behind a link, a symbolic link a checkout planted, a disk that fills
// up; standard output that cannot be written; control characters and markup in file names and
// source lines.
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/source_file.h"

namespace fs = std::filesystem;
using tpulint::testing::run_tpulint;
using tpulint::testing::slurp;
using tpulint::testing::TempDir;

namespace {

const std::string kProject = "fixtures/projects/torch_cuda_extension";

// Everything written into the FIFO at `path` until its writer closes it. Gives up after `limit`,
// so that a writer that never comes (the FIFO was replaced) fails the test instead of hanging it.
std::string read_fifo(const std::string& path, std::chrono::seconds limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd < 0) return "";
  std::string got;
  bool writer_came = false;
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    char buf[65536];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      got.append(buf, size_t(n));
      writer_came = true;
      continue;
    }
    if (n == 0 && writer_came) break;          // the writer closed it
    if (n < 0 && errno == EAGAIN) writer_came = true;  // open for writing, nothing yet
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::close(fd);
  return got;
}

// A device every write to fails with ENOSPC, as /dev/full: as root a node of its own in `dir` (a
// tpulint that replaced its output file would replace the system's /dev/full otherwise), else
// /dev/full, which a process that is not root cannot replace.
std::string full_device(const TempDir& dir) {
  if (::geteuid() == 0 && ::mknod(dir.str("full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) return dir.str("full");
  return "/dev/full";
}

// Where `text` holds something a terminal or a reader acts on rather than shows: a control but
// line feed and tab, a C1 control, a bidirectional control, or bytes that are not UTF-8; npos
// when it holds none.
size_t raw_control(std::string_view text) {
  if (!tpulint::is_valid_utf8(text)) return 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    const unsigned char next = i + 1 < text.size() ? text[i + 1] : 0, third = i + 2 < text.size() ? text[i + 2] : 0;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return i;
    if (c == 0xC2 && next >= 0x80 && next <= 0x9F) return i;                       // U+0080-U+009F
    if (c == 0xD8 && next == 0x9C) return i;                                       // U+061C
    if (c == 0xE2 && next == 0x80 && ((third >= 0xAA && third <= 0xAE) || third == 0x8E || third == 0x8F)) return i;
    if (c == 0xE2 && next == 0x81 && third >= 0xA6 && third <= 0xA9) return i;  // U+2066-U+2069
  }
  return std::string_view::npos;
}

}  // namespace

// `--output json=/dev/null` run as root replaced /dev/null with a regular file.
TEST_CASE("an output file that is a FIFO is written through, and stays a FIFO", "[e2e][output]") {
  TempDir dir;
  std::string fifo = dir.str("report.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto reader = std::async(std::launch::async, read_fifo, fifo, std::chrono::seconds(20));
  auto r = run_tpulint("scan " + kProject + " --format json --output json='" + fifo + "'");
  std::string got = reader.get();
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(got == r.out);
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
}

TEST_CASE("an output file that is a device is written in place: a full one is an error naming it",
          "[e2e][output]") {
  TempDir dir;
  std::string device = full_device(dir);
  for (std::string args : {"scan " + kProject + " --output json='" + device + "'",
                           "scan " + kProject + " --timings '" + device + "'",
                           "baseline " + kProject + " -o '" + device + "'"}) {
    auto r = run_tpulint(args);
    INFO(args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("tpulint: error: cannot write '" + device + "': No space left on device") != std::string::npos);
    CHECK(fs::is_character_file(fs::symlink_status(device)));
  }
}

TEST_CASE("an output file that is a link to standard output (/dev/stdout) is written to standard output",
          "[e2e][output]") {
  TempDir dir;
  dir.symlink("/proc/self/fd/1", "stdout");  // what /dev/stdout is, in a directory of the test's own
  auto r = run_tpulint("scan " + kProject + " --color never --output json='" + dir.str("stdout") + "'");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  size_t json = r.out.find("{\n  \"schema_version\"");
  REQUIRE(json != std::string::npos);
  CHECK(r.out.find("Summary") < json);  // after the text report, in its place in the stream
  CHECK(fs::is_symlink(fs::symlink_status(dir.str("stdout"))));
}

// The temporary file was FILE.tmp.<pid>, opened without O_EXCL: a symbolic link planted at that
// name sent the report into the link's target.
TEST_CASE("a symbolic link planted at the old temporary file's name does not redirect the write",
          "[e2e][output]") {
  TempDir dir;
  std::string victim = dir.write("victim", "precious\n").string();
  std::string out = dir.str("report.json");
  // `exec` keeps the shell's pid for tpulint, so $$ is the pid the old name used.
  auto r = run_tpulint("scan " + kProject + " --format json --output json='" + out + "'", TPULINT_SOURCE_DIR,
                       "ln -s '" + victim + "' '" + out + ".tmp.'$$ && exec env");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(slurp(victim) == "precious\n");
  CHECK(fs::is_regular_file(fs::symlink_status(out)));
  CHECK(slurp(out) == r.out);
}

TEST_CASE("a new output file gets the permissions of any new file: 0666 less the umask", "[e2e][output]") {
  TempDir dir;
  auto r = run_tpulint("scan " + kProject + " --output json='" + dir.str("report.json") + "'", TPULINT_SOURCE_DIR,
                       "umask 027;");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(fs::status(dir.str("report.json")).permissions() == (fs::perms::owner_read | fs::perms::owner_write |
                                                             fs::perms::group_read));
}

TEST_CASE("an output file that is a symbolic link to a regular file replaces the link, never writes through it",
          "[e2e][output]") {
  TempDir dir;
  std::string victim = dir.write("victim", "precious\n").string();
  dir.symlink(victim, "report.json");  // as a checkout could plant it where CI writes its report
  auto r = run_tpulint("scan " + kProject + " --format json --output json='" + dir.str("report.json") + "'");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(slurp(victim) == "precious\n");
  CHECK(fs::is_regular_file(fs::symlink_status(dir.str("report.json"))));
  CHECK(slurp(dir.str("report.json")) == r.out);

  dir.symlink(victim, "docs/TPU101.md");  // `docs --output-dir` writes the same way
  auto docs = run_tpulint("docs --output-dir '" + dir.str("docs") + "'");
  INFO(docs.err);
  CHECK(docs.exit_code == 0);
  CHECK(slurp(victim) == "precious\n");
  CHECK(slurp(dir.str("docs/TPU101.md")).rfind("# TPU101 ", 0) == 0);
}

TEST_CASE("an output file that is a symbolic link to a device, a directory or nothing is refused", "[e2e][output]") {
  TempDir dir;
  dir.symlink("/dev/zero", "device.json");
  dir.symlink(dir.path(), "directory.json");
  dir.symlink(dir.str("missing"), "dangling.json");  // what /dev/stdout is when standard output is closed
  for (std::string name : {"device.json", "directory.json", "dangling.json"}) {
    auto r = run_tpulint("scan " + kProject + " --output json='" + dir.str(name) + "'");
    INFO(name << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("tpulint: error: cannot write '" + dir.str(name) + "': it is a symbolic link") !=
          std::string::npos);
    CHECK(fs::is_symlink(fs::symlink_status(dir.str(name))));
  }
  CHECK_FALSE(fs::exists(dir.str("missing")));
}

// A write that failed (ENOSPC) left FILE.tmp.<pid> behind, and the error named it, not FILE.
TEST_CASE("an output file that cannot be written is left as it was, with no temporary file, and the error names it",
          "[e2e][output]") {
  TempDir dir;
  std::string out = dir.write("out/report.json", "the last report\n").string();
  // A file size limit of 512 bytes, as a full disk would: writes past it fail with EFBIG.
  auto r = run_tpulint("scan " + kProject + " --no-cache --output json='" + out + "'", TPULINT_SOURCE_DIR,
                       "trap '' XFSZ; ulimit -f 1;");
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "tpulint: error: cannot write '" + out + "': File too large\n");
  CHECK(slurp(out) == "the last report\n");
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.str("out"))) left.push_back(e.path().filename().string());
  CHECK(left == std::vector<std::string>{"report.json"});
}

// `tpulint scan > /dev/full` exited 0 with nothing written, and so did every other command.
TEST_CASE("output that cannot be written to standard output exits 2, saying why", "[e2e][output]") {
  TempDir dir;
  auto shard = run_tpulint("scan " + kProject + " --format json");
  REQUIRE(shard.exit_code == 0);
  dir.write("shard.json", shard.out);
  const std::pair<std::string, std::string> commands[] = {
      {"scan " + kProject, "the report"},
      {"scan " + kProject + " --format json --output sarif='" + dir.str("out.sarif") + "'", "the report"},
      {"merge '" + dir.str("shard.json") + "' --format markdown", "the report"},
      {"baseline " + kProject + " -o '" + dir.str("baseline.json") + "'", "the summary"},
      {"checks", "the list of checks"},
      {"explain TPU101", "the check's documentation"},
      {"--help", ""},
  };
  for (const auto& [args, what] : commands) {
    auto r = run_tpulint(args + " >/dev/full");
    INFO(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "tpulint: error: cannot write " + (what.empty() ? "" : what + " ") +
                       "to stdout: No space left on device\n");
  }
}

// With SIGPIPE ignored (as CI runners and Python's subprocess leave it), a report piped into a
// reader that had exited was lost and tpulint exited 0.
TEST_CASE("a report into a closed pipe exits 2 when SIGPIPE is ignored", "[e2e][output]") {
  TempDir dir;
  // The report is larger than a pipe holds, so its writes meet the closed end whenever `true` exits.
  dir.write("run.sh", "trap '' PIPE\n"
                      "cd \"$1\" || exit 100\n"
                      "{ \"$2\" scan fixtures/projects --format json 2>\"$3/err\"; echo $? >\"$3/code\"; } | true\n");
  int status = std::system(("XDG_CACHE_HOME='" + dir.str("cache") + "' sh '" + dir.str("run.sh") + "' '" +
                            TPULINT_SOURCE_DIR + "' '" + TPULINT_BINARY + "' '" + dir.str() + "'")
                               .c_str());
  REQUIRE(status == 0);
  CHECK(slurp(dir.str("code")) == "2\n");
  CHECK(slurp(dir.str("err")) == "tpulint: error: cannot write the report to stdout: Broken pipe\n");
}

// A file name forged an "error TPU101" line in the text report, an escape sequence in a source line
// reached the terminal, a link in a file name became clickable in the Markdown report, and a tab
// or a line break in a name split a row of the --timings table.
TEST_CASE("control characters and markup in file names and source lines are shown, never acted on, in every format "
          "people read",
          "[e2e][output]") {
  TempDir dir;
  const std::string name = "evil\x1b[2J\r\nerror TPU101 forged\t[click](javascript:alert(1)).py";
  dir.write("repo/" + name, "import torch\nidx = torch.nonzero(mask)  # \x1b]0;pwned\x07 \xe2\x80\xae <b>\n");
  const std::string repo = "scan '" + dir.str("repo") + "' --color never ";
  const std::string shown_name = "evil\\x1b[2J\\r\\nerror TPU101 forged\t[click](javascript:alert(1)).py";

  auto text = run_tpulint(repo + "--no-cache --timings '" + dir.str("times.tsv") + "'");
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK(raw_control(text.out) == std::string::npos);
  CHECK(text.out.rfind(shown_name + "\n", 0) == 0);  // the file's heading
  CHECK(text.out.find("# \\x1b]0;pwned\\x07 \\u202e <b>") != std::string::npos);
  CHECK(text.out.find("\nerror TPU101") == std::string::npos);

  std::string tsv = slurp(dir.str("times.tsv"));
  CHECK(raw_control(tsv) == std::string::npos);
  CHECK(tsv.find("\tpython\tevil\\x1b[2J\\r\\nerror TPU101 forged\\t[click](javascript:alert(1)).py\n") !=
        std::string::npos);
  CHECK(std::count(tsv.begin(), tsv.end(), '\n') == 2);  // the header and one file
  CHECK(std::count(tsv.begin(), tsv.end(), '\t') == 4);  // two per line
  CHECK(raw_control(text.err) == std::string::npos);      // the summary names the slowest file

  auto github = run_tpulint(repo + "--format github");
  CHECK(raw_control(github.out) == std::string::npos);
  std::istringstream lines(github.out);
  for (std::string line; std::getline(lines, line);) CHECK(line.rfind("::", 0) == 0);

  auto markdown = run_tpulint(repo + "--format markdown --link-base https://example.com/blob/main/");
  CHECK(raw_control(markdown.out) == std::string::npos);
  CHECK(markdown.out.find("[click](") == std::string::npos);
  CHECK(markdown.out.find("\\[click\\]\\(javascript:alert\\(1\\)\\)") != std::string::npos);
  CHECK(markdown.out.find("(https://example.com/blob/main/evil%1B%5B2J%0D%0Aerror%20TPU101%20forged%09%5Bclick%5D"
                          "%28javascript%3Aalert%281%29%29.py#L2)") != std::string::npos);

  auto html = run_tpulint(repo + "--format html");
  CHECK(raw_control(html.out) == std::string::npos);
  CHECK(html.out.find("&lt;b&gt;") != std::string::npos);

  // JSON, SARIF and GitLab carry the exact text, controls as JSON escapes.
  const std::string escaped_name = "evil\\u001b[2J\\r\\nerror TPU101 forged\\t[click](javascript:alert(1)).py";
  const std::string escaped_line = "# \\u001b]0;pwned\\u0007 \\u202e <b>";
  for (auto [format, expected] : {std::pair{"json", escaped_name}, {"json", escaped_line}, {"sarif", escaped_line},
                                  {"gitlab", escaped_name}}) {
    auto r = run_tpulint(repo + "--format " + format);
    INFO(format << " " << expected);
    CHECK(raw_control(r.out) == std::string::npos);
    CHECK(r.out.find(expected) != std::string::npos);
  }
  CHECK(nlohmann::json::parse(run_tpulint(repo + "--format json").out).at("findings").at(0).at("path") == name);
}
