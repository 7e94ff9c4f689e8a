#!/usr/bin/env bash
# Build the Linux musl addon (Alpine and other musl distributions) with zig as the
# linker, then prove with scripts/check-linux-addon.sh that the result links
# against musl only.
#
#   scripts/build-musl.sh [TARGET] [extra `napi build` arguments, e.g. --release]
#
# TARGET is x86_64-unknown-linux-musl (default) or aarch64-unknown-linux-musl.
# When the Rust standard library for TARGET is not installed, the script says so
# and exits 0, so that `npm run build:musl` is harmless on a machine without it;
# set BUILD_MUSL_REQUIRED=1 (the release workflow does) to make that an error.
#
# Why zig: `napi build --target x86_64-unknown-linux-musl` with the host's gcc
# "succeeds" and links the addon against glibc (libc.so.6, ld-linux-x86-64.so.2,
# libgcc_s), which then fails to load on Alpine. `napi build -x` links through
# cargo-zigbuild + zig, which bring a real musl sysroot.
#
# Tools: `zig` and `cargo-zigbuild` from PATH when present; otherwise zig comes
# from the `ziglang` package on PyPI (a venv under .cache/zig) and cargo-zigbuild
# from crates.io (installed under .cache/cargo-zigbuild). Both are pinned.
set -euo pipefail
cd "$(dirname "$0")/.."

ZIGLANG_VERSION=0.14.1
CARGO_ZIGBUILD_VERSION=0.24.1

target=x86_64-unknown-linux-musl
if [[ $# -gt 0 && $1 == *-linux-musl ]]; then
  target=$1
  shift
fi
case "$target" in
  x86_64-unknown-linux-musl) abi=linux-x64-musl ;;
  aarch64-unknown-linux-musl) abi=linux-arm64-musl ;;
  *)
    echo "build-musl: unsupported target $target" >&2
    exit 2
    ;;
esac

# `rustup target list --installed` answers the same question, but only where
# rustup manages the toolchain; the sysroot is there for every installation.
if [[ ! -d "$(rustc --print target-libdir --target "$target" 2>/dev/null)" ]]; then
  echo "build-musl: the Rust target $target is not installed (rustup target add $target); nothing built."
  if [[ ${BUILD_MUSL_REQUIRED:-0} == 1 ]]; then
    exit 1
  fi
  exit 0
fi

cache=$PWD/.cache
if ! command -v zig >/dev/null 2>&1; then
  if [[ ! -x $cache/zig/bin/python ]] || ! "$cache/zig/bin/python" -m ziglang version >/dev/null 2>&1; then
    python3 -m venv "$cache/zig"
    "$cache/zig/bin/pip" install --quiet "ziglang==$ZIGLANG_VERSION"
  fi
  mkdir -p "$cache/zig/shim"
  printf '#!/bin/sh\nexec "%s" -m ziglang "$@"\n' "$cache/zig/bin/python" >"$cache/zig/shim/zig"
  chmod +x "$cache/zig/shim/zig"
  export PATH="$cache/zig/shim:$PATH"
fi
if ! command -v cargo-zigbuild >/dev/null 2>&1; then
  if [[ ! -x $cache/cargo-zigbuild/bin/cargo-zigbuild ]]; then
    cargo install --locked --root "$cache/cargo-zigbuild" --version "$CARGO_ZIGBUILD_VERSION" cargo-zigbuild
  fi
  export PATH="$cache/cargo-zigbuild/bin:$PATH"
fi

npx napi build --platform --target "$target" -x "$@"

scripts/check-linux-addon.sh "opencode-cursor-native.$abi.node"
