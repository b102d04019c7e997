#!/usr/bin/env bash
# Installs what tpulint needs to build and test, and nothing that is already there.
# Idempotent: a second run checks, finds everything present, and changes nothing.
# Sources: Debian's packages (apt) and the npm registry (grammars/, pinned by its lockfile).
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev
  catch2 nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libfmt-dev libxxhash-dev nettle-dev
  cmake ninja-build g++ make git patch
)
command -v npm >/dev/null 2>&1 || debian_packages+=(nodejs npm)
# --test: what the test suite needs on top: a JSON Schema validator (the JSON and SARIF
# reports are validated against their schemas), a headless browser (the HTML report is
# loaded and checked in Chromium), pre-commit (the hooks are tested in a real commit) and strace
# (a scan of a hostile tree is traced: tests/e2e_strace_test.cpp), and dpkg-dev (the Debian package is
# built, installed into a scratch root and scanned with: tests/package_test.sh).
# --package: dpkg-dev, whose dpkg-shlibdeps finds the Debian package's dependencies (make package).
# --sanitize: libFuzzer and the sanitizer runtimes of clang-19 (make sanitize, make fuzz).
# --bench: the tools bench/run.py compares tpulint with.
for option in "$@"; do
  case "$option" in
    --test) debian_packages+=(python3 python3-jsonschema chromium pre-commit strace dpkg-dev) ;;
    --package) debian_packages+=(dpkg-dev) ;;
    --sanitize) debian_packages+=(libclang-rt-19-dev) ;;
    --bench) debian_packages+=(python3 ripgrep flake8) ;;
    *) echo "install-deps: unknown option '$option' (known: --test --package --sanitize --bench)" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${debian_packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# tree-sitter runtime and grammars: exact versions from grammars/package-lock.json.
# The stamp holds the lockfile's hash, so a changed lockfile reinstalls and an unchanged one is a no-op.
if [[ -f grammars/package-lock.json ]]; then
  stamp=grammars/node_modules/.tpulint-lock-hash
  want=$(sha256sum grammars/package-lock.json | cut -d' ' -f1)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "install-deps: installing tree-sitter sources from the npm registry (grammars/package-lock.json)"
    (cd grammars && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
fi
