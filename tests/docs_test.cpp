// docs/checks/ is generated from the checks' metadata (`make docs`); this fails when a page
// is stale, missing, or left over from a check that no longer exists.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks/registry.h"
#include "core/version.h"
#include "report/check_docs.h"

namespace fs = std::filesystem;
using namespace tpulint;

namespace {
const fs::path kDocs = fs::path(TPULINT_SOURCE_DIR) / "docs" / "checks";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("docs/checks is up to date with the checks' metadata (run `make docs`)", "[docs]") {
  const Registry& registry = checks::registry();
  for (const CheckInfo* c : registry.all()) {
    fs::path page = kDocs / (std::string(c->id) + ".md");
    INFO(page.string() << " is stale or missing: run `make docs`");
    CHECK(read(page) == report::check_doc_markdown(*c));
  }
  INFO("docs/checks/README.md is stale: run `make docs`");
  CHECK(read(kDocs / "README.md") == report::catalogue_markdown(registry));

  for (const auto& e : fs::directory_iterator(kDocs)) {
    std::string stem = e.path().stem().string();
    if (stem == "README") continue;
    INFO(e.path().string() << " documents no registered check");
    CHECK(registry.find(stem) != nullptr);
  }
}

// Issue 36: docs/ci.md told users `rev: v0.1.0`, a tag that did not exist, and the project's URL
// was written out in several places. A release is tagged v<VERSION> of CMakeLists.txt, and every
// link to the project's repository in the docs is kToolUrl, defined there too.
TEST_CASE("docs/ci.md names the release tag of this version and the project's one URL", "[docs]") {
  const std::string ci = read(fs::path(TPULINT_SOURCE_DIR) / "docs" / "ci.md");
  CHECK(ci.find("rev: v" + std::string(kToolVersion) + " ") != std::string::npos);
  CHECK(ci.find("make release-tag") != std::string::npos);
  // The repository users clone or name as a pre-commit hook repository.
  for (const std::string name : {"docs/ci.md", "README.md"}) {
    std::istringstream text(read(fs::path(TPULINT_SOURCE_DIR) / name));
    for (std::string line; std::getline(text, line);) {
      const size_t url = line.find("https://");
      if (url == std::string::npos || (line.find("git clone") == std::string::npos && line.find("repo:") == std::string::npos))
        continue;
      INFO(name << ": " << line);
      CHECK(line.substr(url, line.find_first_of(" \t", url) - url) == kToolUrl);
    }
  }
}
