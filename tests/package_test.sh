#!/bin/sh
# The Debian package (`make package`) as a user gets it. CPack builds it from the existing build
# (nothing is compiled); its files and dependencies are read with dpkg-deb; it is installed with
# dpkg into a scratch root, never into the machine's own package database; from there
# `tpulint --version` runs, and a scan of a sample project with CUDA sources runs under strace,
# which shows the C/C++ frontend loaded from the package's lib/tpulint and nothing read from the
# build directory; then dpkg removes it.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR. A missing program skips the test (ctest's
# SKIP_REGULAR_EXPRESSION "tpulint-test-skipped:").
set -eu
build=$1
source=$2

for program in cpack dpkg dpkg-deb dpkg-shlibdeps strace; do
  command -v "$program" >/dev/null 2>&1 || { echo "tpulint-test-skipped: '$program' is not on PATH"; exit 0; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "package_test: $*" >&2; exit 1; }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack failed"; }
set -- "$tmp"/out/tpulint_*.deb
[ $# -eq 1 ] && [ -f "$1" ] || fail "cpack made no single tpulint_*.deb in $tmp/out"
deb=$1

# The files: the command, the frontend it loads, the docs.
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/files"
for path in ./usr/bin/tpulint ./usr/lib/tpulint/libtpulint_clang.so ./usr/share/doc/tpulint/README.md \
            ./usr/share/doc/tpulint/scoring.md ./usr/share/doc/tpulint/checks/TPU101.md; do
  grep -qx "$path" "$tmp/files" || fail "$path is not in the package: $(cat "$tmp/files")"
done
# The dependencies: the Debian packages of the libraries both files link.
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' >"$tmp/depends"
for package in libclang-cpp19 libllvm19 libfmt9 libtomlplusplus3 libxxhash0 libnettle8 libstdc++6 libc6; do
  grep -qxF "$package" "$tmp/depends" || fail "Depends lacks $package: $depends"
done
version=$(dpkg-deb -f "$deb" Version)

# Installed into a scratch root. Its database has none of the dependencies (the machine has them),
# hence --force-depends. dpkg runs the package's scripts (CPack's `ldconfig`, for a library under
# /usr/lib) chrooted there: the root gets a shell, the C library it needs and the static ldconfig.
# dpkg installs as root only; elsewhere the package is unpacked instead.
root=$tmp/root
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/log" "$root/etc" "$root/tmp"
  : >"$root/var/lib/dpkg/status"
  for file in /bin/sh /sbin/ldconfig $(ldd /bin/sh | grep -o '/[^ ]*'); do
    mkdir -p "$root$(dirname "$file")"
    cp -L "$file" "$root$file"
  done
  dpkg --root="$root" --force-depends -i "$deb" >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -i failed"; }
  dpkg --root="$root" -s tpulint | grep -q '^Status: install ok installed' || fail "dpkg does not list tpulint as installed"
else
  dpkg-deb -x "$deb" "$root"
fi

[ "$("$root/usr/bin/tpulint" --version)" = "tpulint $version" ] || fail "tpulint --version is not 'tpulint $version'"

cd "$tmp"  # not the build directory ctest runs tests in
strace -f -qq -e trace=%file -o "$tmp/trace" "$root/usr/bin/tpulint" scan "$source/fixtures/projects/torch_cuda_extension" \
  --isolated --no-cache --exit-zero --format json -o "$tmp/report.json" || fail "the scan failed"
grep -q '"id": "TPU101"' "$tmp/report.json" || fail "the scan found no CUDA kernel: the C/C++ frontend did not run"
grep -F "$root/usr/lib/tpulint/libtpulint_clang.so" "$tmp/trace" | grep -q 'openat(.*= [0-9]' ||
  fail "the frontend was not opened from $root/usr/lib/tpulint"
if grep -F "$build/" "$tmp/trace" >"$tmp/from_build"; then
  fail "the installed tpulint touched the build directory: $(head -5 "$tmp/from_build")"
fi

if [ "$(id -u)" -eq 0 ]; then
  dpkg --root="$root" -r tpulint >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -r failed"; }
  [ ! -e "$root/usr/bin/tpulint" ] && [ ! -e "$root/usr/lib/tpulint/libtpulint_clang.so" ] || fail "dpkg -r left files"
fi
echo "package_test: $(basename "$deb") installed, ran and removed"
