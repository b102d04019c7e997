// libFuzzer target: bytes as a whole result-cache file, read by ResultCache and looked up,
// saved and read again through its public API only (the file's format is its own business).
// Every lookup of a damaged file is a miss or a result; a file saved from what was read reads
// back to the same results.
//
// The lookups ask for a few fixed entries. Seeds that hold them are made by this program with
// TPULINT_FUZZ_CACHE_SEEDS=DIR set (scripts/fuzz.sh): it stores each encoded result found in
// $TPULINT_FUZZ_CODEC_SEEDS under those entries, writes the cache files to DIR, and exits.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/result_cache.h"
#include "core/result_codec.h"

namespace fs = std::filesystem;
using namespace tpulint;

namespace {

struct Probe {
  std::string path;
  FileStamp stamp;
  uint64_t hash;
  uint64_t dependency_key;
};
const std::array<Probe, 3> kProbes = {{{"pkg/model.py", {1200, 1000000000}, 11, 0},
                                       {"csrc/kernel.cu", {3400, 2000000000}, 22, 33},
                                       {"CMakeLists.txt", {560, 3000000000}, 44, 55}}};

const fs::path kRoot = "/fuzz/root";
constexpr std::string_view kSettings = "fuzz";

const fs::path& cache_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("tpulint-fuzz-cache-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// The files in `dir`, sorted.
std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> probe_paths() {
  std::vector<std::string> paths;
  for (const Probe& p : kProbes) paths.push_back(p.path);
  return paths;
}

// The file ResultCache reads for kRoot and kSettings in cache_dir(): made by saving a cache once.
const fs::path& cache_file() {
  static const fs::path file = [] {
    ResultCache cache(cache_dir(), kRoot, kSettings);
    const Probe& p = kProbes[0];
    cache.store(p.path, p.stamp, p.hash, p.dependency_key, FileResult{});
    cache.save({p.path});
    const std::vector<fs::path> files = files_in(cache_dir());
    if (files.size() != 1) __builtin_trap();
    return files.front();
  }();
  return file;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

// What every probe finds, each lookup encoded ("-" for a miss).
std::vector<std::string> look_up_all(const ResultCache& cache) {
  std::vector<std::string> found;
  auto add = [&](const std::optional<FileResult>& r) { found.push_back(r ? encode_result(*r) : "-"); };
  for (const Probe& p : kProbes) {
    add(cache.find_by_stamp(p.path, p.stamp, p.dependency_key));
    add(cache.find_by_hash(p.path, p.hash, p.dependency_key));
    // Into a scan's list: the same result, its findings behind the list's one, or no change.
    std::vector<Finding> list(1);
    std::optional<FileResult> r = cache.find_by_stamp(p.path, p.stamp, p.dependency_key, list);
    if (r) r->findings.assign(list.begin() + 1, list.end());
    if ((r ? encode_result(*r) : "-") != found[found.size() - 2] || (!r && list.size() != 1)) __builtin_trap();
  }
  return found;
}

// Seed mode: each encoded result under DIR's files stored as the probes' entries, a cache file
// per file of results.
void write_seeds(const fs::path& codec_seeds, const fs::path& out) {
  const std::vector<fs::path> inputs = files_in(codec_seeds);
  fs::create_directories(out);
  const fs::path& file = cache_file();
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::optional<FileResult> result = decode_result("", read_file(inputs[i]));
    if (!result) continue;
    {
      ResultCache cache(cache_dir(), kRoot, kSettings);
      for (const Probe& p : kProbes) cache.store(p.path, p.stamp, p.hash, p.dependency_key, *result);
      cache.save(probe_paths());
    }
    fs::copy_file(file, out / ("cache-" + std::to_string(i)), fs::copy_options::overwrite_existing);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* out = std::getenv("TPULINT_FUZZ_CACHE_SEEDS");
  const char* codec_seeds = std::getenv("TPULINT_FUZZ_CODEC_SEEDS");
  if (out && codec_seeds) {
    write_seeds(codec_seeds, out);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  {
    std::ofstream file(cache_file(), std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  }
  std::vector<std::string> found;
  {
    ResultCache cache(cache_dir(), kRoot, kSettings);
    found = look_up_all(cache);
    cache.save(probe_paths());
  }
  const ResultCache saved(cache_dir(), kRoot, kSettings);
  if (look_up_all(saved) != found) __builtin_trap();
  return 0;
}
