// Baseline fingerprints: what of a finding they hash (check, subject, path, the code of its
// line) and what they leave out (comments, spacing, the message), and line_code, which reads a
// line's code in each language.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/fingerprint.h"
#include "core/source_file.h"

using namespace tpulint;

namespace {

Finding finding(std::string_view path, std::string_view line, std::string_view message = "'x.item()' syncs",
                std::string_view id = "TPU601", std::string_view subject = "item") {
  Finding f;
  f.check_id = std::string(id);
  f.path = path;
  f.source_line = line;
  f.message = message;
  f.subject = subject;
  return f;
}

std::string print(const Finding& f) { return fingerprints(std::vector<Finding>{f}).front(); }

}  // namespace

TEST_CASE("line_code leaves out comments and spacing and keeps string literals, per language", "[core][fingerprint]") {
  // Python and CMake: '#' starts a comment outside a string.
  CHECK(line_code("    v = x.item()  # touch", Language::Python) == "v=x.item()");
  CHECK(line_code("s = '# not a comment' + \"#\"  # one", Language::Python) == "s='# not a comment'+\"#\"");
  CHECK(line_code("s = 'it\\'s # still'  # c", Language::Python) == "s='it\\'s # still'");
  CHECK(line_code("d = '''a # b''' # c", Language::Python) == "d='''a # b'''");
  CHECK(line_code("f = r\"\\d+ #\"", Language::Python) == "f=r\"\\d+ #\"");
  CHECK(line_code("x = 'open # string", Language::Python) == "x='open # string");
  CHECK(line_code("# only a comment", Language::Python).empty());
  CHECK(line_code("add_library(k \"a # b.cu\") # c", Language::Cmake) == "add_library(k\"a # b.cu\")");
  CHECK(line_code("set(X [[a # b]]) #[[ bracket ]] y()", Language::Cmake) == "set(X[[a # b]])y()");
  CHECK(line_code("message(don't) # c", Language::Cmake) == "message(don't)");
  // C/C++/CUDA: '//' and '/* */'; '#' is code (a preprocessor directive).
  CHECK(line_code("#include <cuda.h> // runtime", Language::Cxx) == "#include<cuda.h>");
  CHECK(line_code("k<<<g, b>>>(x); /* launch */ y(); // z", Language::Cuda) == "k<<<g,b>>>(x);y();");
  CHECK(line_code("auto s = \"// not a comment\"; // one", Language::Cxx) == "autos=\"// not a comment\";");
  CHECK(line_code("char c = '\"'; // q", Language::Cxx) == "charc='\"';");
  CHECK(line_code("auto r = R\"x(a \" // b)x\"; // c", Language::Cxx) == "autor=R\"x(a \" // b)x\";");
  CHECK(line_code("int n = 1'000'000; // big", Language::Cxx) == "intn=1'000'000;");
  CHECK(line_code("f(a); /* open", Language::Cxx) == "f(a);");
}

TEST_CASE("a comment added to a baselined line leaves its fingerprint", "[core][fingerprint]") {
  CHECK(print(finding("m.py", "    v = x.item()")) == print(finding("m.py", "    v = x.item()  # touch")));
  CHECK(print(finding("m.py", "    v = x.item()")) == print(finding("m.py", "v  =  x.item()")));
  CHECK(print(finding("k.cu", "cudaMalloc(&p, n);")) == print(finding("k.cu", "cudaMalloc(&p, n);  // TODO")));
  // A '#' in a string is code: changing what follows it changes the line.
  CHECK(print(finding("m.py", "x.item()  # a")) != print(finding("m.py", "x.item(); s = '# a'")));
}

TEST_CASE("a reworded message leaves a finding's fingerprint", "[core][fingerprint]") {
  CHECK(print(finding("m.py", "v = x.item()", "'x.item()' copies to the host")) ==
        print(finding("m.py", "v = x.item()", "'.item()' waits for the device")));
}

TEST_CASE("a fingerprint changes with the line's code, the check, the subject and the path", "[core][fingerprint]") {
  const std::string base = print(finding("m.py", "v = x.item()"));
  CHECK(print(finding("m.py", "v = y.item()")) != base);
  CHECK(print(finding("m.py", "v = x.item()", "'x.item()' syncs", "TPU602")) != base);
  CHECK(print(finding("m.py", "v = x.item()", "'x.item()' syncs", "TPU601", "tolist")) != base);
  CHECK(print(finding("n.py", "v = x.item()")) != base);
}

TEST_CASE("identical findings on lines of the same code are told apart by their occurrence", "[core][fingerprint]") {
  std::vector<Finding> same = {finding("m.py", "v = x.item()"), finding("m.py", "v = x.item()  # again"),
                               finding("n.py", "v = x.item()")};
  auto prints = fingerprints(same);
  REQUIRE(prints.size() == 3);
  CHECK(prints[0].ends_with(":1"));
  CHECK(prints[1].ends_with(":2"));
  CHECK(prints[0].substr(0, 16) == prints[1].substr(0, 16));
  CHECK(prints[2].ends_with(":1"));  // counted per file
  CHECK(prints[0] != prints[2]);
}
