// ResultCache's file: entries survive a round trip whatever bytes their paths hold, a damaged
// file is an empty cache, and a run that changed nothing does not rewrite it.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "core/result_cache.h"

using namespace tpulint;
namespace fs = std::filesystem;

namespace {

struct CacheDir {
  fs::path path = fs::temp_directory_path() / ("tpulint-cache-test-" + std::to_string(::getpid()));
  CacheDir() { fs::remove_all(path); }
  ~CacheDir() { fs::remove_all(path); }
  fs::path only_file() const {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path)) files.push_back(e.path());
    REQUIRE(files.size() == 1);
    return files[0];
  }
};

FileResult result_with(const std::string& path, const std::string& message) {
  FileResult r;
  r.path = path;
  r.language = Language::Python;
  r.analyzed = true;
  Finding f;
  f.check_id = "TPU201";
  f.path = path;
  f.message = message;
  f.source_line = "x = torch.nonzero(y)  # with a tab\there";
  r.findings.push_back(f);
  return r;
}

// An old stamp, so that the entry is not "racy" (modified in the last seconds).
const FileStamp kStamp{120, 1'000'000'000};

}  // namespace

TEST_CASE("result cache: entries round-trip, paths with spaces and newlines included", "[cache]") {
  CacheDir dir;
  const std::vector<std::string> paths = {"pkg/model.py", "odd dir/a b.py", "new\nline.py", "ünï/cödé.py"};
  {
    ResultCache cache(dir.path, "/project", "settings");
    for (const std::string& p : paths) cache.store(p, kStamp, 7, 0, result_with(p, "message of " + p + "\nsecond line"));
    cache.save(paths);
  }
  ResultCache reread(dir.path, "/project", "settings");
  for (const std::string& p : paths) {
    INFO(p);
    auto hit = reread.find_by_stamp(p, kStamp, 0);
    REQUIRE(hit);
    REQUIRE(hit->findings.size() == 1);
    CHECK(hit->findings[0].message == "message of " + p + "\nsecond line");
    CHECK(hit->findings[0].source_line == "x = torch.nonzero(y)  # with a tab\there");
    CHECK(reread.find_by_hash(p, 7, 0));
    CHECK_FALSE(reread.find_by_stamp(p, FileStamp{121, kStamp.mtime_ns}, 0));
    CHECK_FALSE(reread.find_by_hash(p, 8, 0));
    CHECK_FALSE(reread.find_by_stamp(p, kStamp, 99));  // another headers key
  }
  // Other settings or another root: another cache.
  CHECK_FALSE(ResultCache(dir.path, "/project", "other settings").find_by_stamp(paths[0], kStamp, 0));
  CHECK_FALSE(ResultCache(dir.path, "/elsewhere", "settings").find_by_stamp(paths[0], kStamp, 0));
}

TEST_CASE("result cache: results stored with their findings apart, and found into one list", "[cache]") {
  // A scan keeps every file's findings in one list: it stores a result with its range of the
  // list, and a cached result's findings are appended to the list.
  CacheDir dir;
  std::vector<Finding> list;
  for (const std::string p : {"a.py", "b.py"})
    for (const Finding& f : result_with(p, "about " + p).findings) list.push_back(f);
  {
    ResultCache cache(dir.path, "/project", "settings");
    FileResult meta = result_with("b.py", "unused");
    meta.findings.clear();
    cache.store("b.py", kStamp, 7, 0, meta, std::span(list).subspan(1, 1));
    cache.save({"b.py"});
  }
  ResultCache reread(dir.path, "/project", "settings");
  std::vector<Finding> found(2);  // what the list held before
  auto hit = reread.find_by_stamp("b.py", kStamp, 0, found);
  REQUIRE(hit);
  CHECK(hit->findings.empty());
  CHECK(hit->path == "b.py");
  REQUIRE(found.size() == 3);
  CHECK(found[2].message == "about b.py");
  CHECK(found[2].source_line == list[1].source_line);
  CHECK_FALSE(reread.find_by_stamp("b.py", FileStamp{121, kStamp.mtime_ns}, 0, found));
  CHECK_FALSE(reread.find_by_stamp("a.py", kStamp, 0, found));
  CHECK(found.size() == 3);  // a miss adds nothing
}

TEST_CASE("result cache: a damaged file is an empty cache, never an error", "[cache]") {
  CacheDir dir;
  {
    ResultCache cache(dir.path, "/project", "s");
    cache.store("a.py", kStamp, 1, 0, result_with("a.py", "m"));
    cache.store("b.py", kStamp, 2, 0, result_with("b.py", "m"));
    cache.save({"a.py", "b.py"});
  }
  fs::path file = dir.only_file();
  std::stringstream ss;
  ss << std::ifstream(file).rdbuf();
  const std::string whole = ss.str();
  for (size_t cut : {size_t(0), size_t(5), whole.size() / 2, whole.size() - 1}) {
    INFO("truncated at " << cut);
    std::ofstream(file, std::ios::trunc) << whole.substr(0, cut);
    ResultCache cache(dir.path, "/project", "s");
    // A cut inside the second entry drops everything: no entry is trusted from a damaged file.
    CHECK_FALSE(cache.find_by_stamp("b.py", kStamp, 0));
  }
  std::ofstream(file, std::ios::trunc) << "tpulint-results 5\nnot a number at all\n";
  CHECK_FALSE(ResultCache(dir.path, "/project", "s").find_by_stamp("a.py", kStamp, 0));
  // A well-formed line whose result is not JSON is a miss, not a crash.
  std::ofstream(file, std::ios::trunc) << "tpulint-results 5\n120 1000000000 1 0 4 a.py{broken\n";
  CHECK_FALSE(ResultCache(dir.path, "/project", "s").find_by_stamp("a.py", kStamp, 0));
}

TEST_CASE("result cache: a run that stores nothing and drops nothing leaves the file untouched", "[cache]") {
  CacheDir dir;
  {
    ResultCache cache(dir.path, "/project", "s");
    cache.store("a.py", kStamp, 1, 0, result_with("a.py", "m"));
    cache.save({"a.py"});
  }
  fs::path file = dir.only_file();
  auto written = fs::last_write_time(file);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    ResultCache cache(dir.path, "/project", "s");
    REQUIRE(cache.find_by_stamp("a.py", kStamp, 0));
    cache.save({"a.py"});
  }
  CHECK(fs::last_write_time(file) == written);
  {
    ResultCache cache(dir.path, "/project", "s");
    cache.save({});  // a.py is gone from the tree: its entry is dropped
  }
  CHECK(fs::last_write_time(file) != written);
  CHECK_FALSE(ResultCache(dir.path, "/project", "s").find_by_stamp("a.py", kStamp, 0));
}

TEST_CASE("result cache: the tool's hash is its build ID, read from memory as readelf reads it from the file",
          "[cache]") {
  std::string_view id = executable_build_id();
  REQUIRE_FALSE(id.empty());  // Debian's toolchain links with --build-id
  std::string hex;
  for (unsigned char c : id) hex += fmt::format("{:02x}", c);
  // readelf (binutils, which the compiler needs) prints the executable's notes.
  std::string command = "readelf -n /proc/" + std::to_string(getpid()) + "/exe";
  std::string listing;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) listing.append(buf, n);
    pclose(p);
  }
  CHECK(listing.find("Build ID: " + hex) != std::string::npos);
  CHECK(tool_build_hash() == content_hash(id));
}
