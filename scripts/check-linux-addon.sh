#!/usr/bin/env bash
# Check a built Linux addon for what makes it load on the systems it is published
# for, reading only its ELF headers (works for any architecture on any host):
#
#   scripts/check-linux-addon.sh opencode-cursor-native.<linux-abi>.node
#
# gnu: every glibc symbol version it needs is at most MAX_GLIBC (default 2.17, the
#      baseline of napi-rs's cross toolchain; a plain build on the host inherits the
#      host's glibc, e.g. 2.34 on Debian 12, and fails to load on older
#      distributions with "version `GLIBC_2.34' not found"), and it carries the
#      NODELETE flag that .cargo/config.toml asks for.
# musl: it needs musl's `libc.so` and nothing else (a musl build linked by the
#      host's gcc needs glibc's libc.so.6 and libgcc_s.so.1 and cannot load on
#      Alpine); where the matching musl loader is installed (Debian's `musl`
#      package), that loader must resolve its libraries and every symbol that
#      Node itself does not provide.
set -euo pipefail

addon=${1:?usage: check-linux-addon.sh FILE.node}
MAX_GLIBC=${MAX_GLIBC:-2.17}

case "$addon" in
  *.linux-x64-gnu.node) libc=gnu machine='X86-64' ;;
  *.linux-arm64-gnu.node) libc=gnu machine='AArch64' ;;
  *.linux-x64-musl.node) libc=musl machine='X86-64' loader=/lib/ld-musl-x86_64.so.1 ;;
  *.linux-arm64-musl.node) libc=musl machine='AArch64' loader=/lib/ld-musl-aarch64.so.1 ;;
  *)
    echo "check-linux-addon: cannot tell the platform of $addon from its name" >&2
    exit 2
    ;;
esac

fail() {
  echo "check-linux-addon: $addon: $*" >&2
  exit 1
}

readelf -h "$addon" | grep -q "Machine:.*$machine" || fail "not a $machine ELF file"
needed=$(readelf -d "$addon" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "check-linux-addon: $addon needs: ${needed//$'\n'/ }"

if [[ $libc == gnu ]]; then
  newest=$(readelf -V --wide "$addon" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
  echo "check-linux-addon: newest glibc symbol version: ${newest:-none}"
  if [[ -n $newest && $(printf '%s\n%s\n' "$newest" "$MAX_GLIBC" | sort -V | tail -n 1) != "$MAX_GLIBC" ]]; then
    fail "needs GLIBC_$newest, newer than the GLIBC_$MAX_GLIBC baseline"
  fi
  readelf -d "$addon" | grep -q 'FLAGS_1.*NODELETE' || fail "lacks the NODELETE flag (see .cargo/config.toml)"
else
  # musl has one shared library, libc.so, which also provides libm, libpthread
  # and libdl.
  if [[ -z $needed ]] || grep -qvx 'libc\.so' <<<"$needed"; then
    fail "needs libraries other than musl's libc.so"
  fi
  # The loader also resolves symbols: Node-API's napi_* come from the Node
  # process at load time, so they are the only ones allowed to stay unresolved.
  # Any other missing symbol (a glibc-only function) would fail on Alpine.
  if [[ -x $loader ]]; then
    listing=$("$loader" --list "$addon" 2>&1) || true
    grep -v ': napi_[A-Za-z0-9_]*: symbol not found$' <<<"$listing" || true
    if grep -q 'Error loading' <<<"$listing"; then
      fail "the musl loader cannot find a library it needs"
    fi
    unresolved=$(grep 'symbol not found$' <<<"$listing" | grep -v ': napi_[A-Za-z0-9_]*: symbol not found$' || true)
    if [[ -n $unresolved ]]; then
      fail "symbols missing from musl: $unresolved"
    fi
    echo "check-linux-addon: musl resolves every symbol except Node-API's ($(grep -c ': napi_' <<<"$listing") left to Node)"
  else
    echo "check-linux-addon: $loader not installed; checked the NEEDED entries only"
  fi
fi
echo "check-linux-addon: $addon: ok"
