# The README's two commands: `make demo` and `make test`. Both install what is missing
# (scripts/install-deps.sh: Debian packages and the pinned tree-sitter sources), build
# build/tpulint, and then scan the sample project or run every test.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: all deps test-deps configure build test demo docs install package bench sanitize sanitize-build fuzz release-tag clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

configure: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: test-deps build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	@$(BUILD_DIR)/tpulint scan fixtures/projects/torch_cuda_extension

# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer, in build-asan/,
# compiled by clang-19 so that the same build holds the libFuzzer targets (`make fuzz`).
# handle_segv=0: the fault-injection tests crash a worker on purpose and check that it died of
# SIGSEGV; a real segfault anywhere else still fails its test (the process dies).
sanitize: sanitize-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:handle_segv=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

sanitize-build:
	@scripts/install-deps.sh --test --sanitize
	@test -f build-asan/build.ninja || CC=clang-19 CXX=clang++-19 cmake -G Ninja -S . -B build-asan \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTPULINT_SANITIZE=ON -DTPULINT_FUZZ=ON
	@cmake --build build-asan -j $(JOBS)

# A bounded fuzz run of each libFuzzer target, seeded from fixtures/ (FUZZ_SECONDS each).
FUZZ_SECONDS ?= 30
fuzz: sanitize-build
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# The benchmark (docs/performance.md): tpulint against its parse-only floor, ripgrep, flake8
# and clang-19 -fsyntax-only, on synthetic repositories of several sizes.
bench: build
	@scripts/install-deps.sh --bench
	@python3 bench/run.py $(BENCH_ARGS)

# Regenerates docs/checks/ from the checks' metadata (a test fails when it is stale).
docs: build
	@$(BUILD_DIR)/tpulint docs --output-dir docs/checks

# Installs the CMake install rules' files under PREFIX (README.md, "Install"): bin/tpulint (for the
# pre-commit hooks and CI jobs), lib/tpulint/libtpulint_clang.so (the C/C++ frontend it loads when it
# parses C/C++) and share/doc/tpulint/. DESTDIR stages them elsewhere.
PREFIX ?= /usr/local
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# A Debian package of the same files under /usr (CPack): build/tpulint_<version>_<arch>.deb, its
# dependencies found by dpkg-shlibdeps (dpkg-dev).
package: build
	@scripts/install-deps.sh --package
	@cd $(BUILD_DIR) && cpack -G DEB

# Tags HEAD as the release of the version in CMakeLists.txt's project(): v<VERSION>, the `rev:`
# pre-commit users name (docs/ci.md). Local only; publish it with `git push origin v<VERSION>`.
release-tag:
	@version=$$(sed -n 's/^project(tpulint VERSION \([0-9][0-9.]*\) .*/\1/p' CMakeLists.txt); \
	test -n "$$version" || { echo "release-tag: no version in CMakeLists.txt's project()" >&2; exit 1; }; \
	git diff --quiet HEAD || { echo "release-tag: the work tree has changes: commit them first" >&2; exit 1; }; \
	git tag -a "v$$version" -m "tpulint $$version" && echo "tagged v$$version; publish it with: git push origin v$$version"

clean:
	rm -rf $(BUILD_DIR)
