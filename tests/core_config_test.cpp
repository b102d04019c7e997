// read_config: keys and values from TOML text, and errors that name the file and the key.
#include <catch2/catch.hpp>

#include "core/config.h"

using namespace tpulint;

TEST_CASE("read_config takes the file's text as given", "[core][config]") {
  Config c = read_config("/p/pyproject.toml",
                         "[tool.tpulint]\nselect = [\"TPU2\"]\nfail-under = 60\n"
                         "[tool.tpulint.path-weights]\n\"tools/**\" = 0.5\n");
  CHECK(c.file == "/p/pyproject.toml");
  CHECK(c.dir == "/p");
  CHECK(c.select == std::vector<std::string>{"TPU2"});
  CHECK(c.fail_under == 60);
  CHECK(c.path_weights == std::vector<std::pair<std::string, double>>{{"tools/**", 0.5}});
  // A .tpulint.toml holds its keys at the top level; a pyproject.toml without the table has none.
  CHECK(read_config("/p/.tpulint.toml", "ignore = [\"TPU904\"]\n").ignore == std::vector<std::string>{"TPU904"});
  CHECK_FALSE(read_config("/p/pyproject.toml", "ignore = [\"TPU904\"]\n").ignore);
  CHECK_THROWS_WITH(read_config("/p/.tpulint.toml", "select = [\n"),
                    Catch::StartsWith("/p/.tpulint.toml: invalid TOML at line"));
  CHECK_THROWS_WITH(read_config("/no/such/.tpulint.toml"), "/no/such/.tpulint.toml: unreadable: No such file or directory");
}

// The range check compared `v < lo || v > hi`, both false for a NaN: `nan` (TOML allows it) was
// taken as a weight or a score threshold.
TEST_CASE("regression: a NaN number in the config was accepted", "[core][config]") {
  for (const char* text : {"fail-under = nan\n", "auxiliary-weight = nan\n", "[path-weights]\n\"a/**\" = -nan\n"}) {
    INFO(text);
    CHECK_THROWS_AS(read_config(".tpulint.toml", text), ConfigError);
  }
}
