#!/usr/bin/env bash
# A smoke test of this package in OpenCode 2, for a machine that has OpenCode 2 (`opencode`, or
# OPENCODE=<binary>) and a Cursor login (`cursor-agent login`, or CURSOR_API_KEY). It packs the
# package as it is published (the root package and this machine's platform package), installs it
# into a private OpenCode 2 configuration folder (your own configuration is not touched), and runs:
#
#   1. one prompt, whose answer must hold PONG;
#   2. a turn in which Cursor uses a tool (it lists the workspace);
#   3. an interrupt: SIGINT to `opencode run` in the middle of an answer, after which no
#      cursor-agent process of the run may remain.
#
# It prints a report to paste into a bug report. Usage, from the repository after `npm run build`:
#
#   bash scripts/opencode2-smoke.sh [model]        # model default cursor-acp/auto
set -uo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
opencode="${OPENCODE:-opencode}"
model="${1:-cursor-acp/auto}"
work="$(mktemp -d "${TMPDIR:-/tmp}/ocn-opencode2-smoke.XXXXXX")"
report="$work/report.txt"
trap 'echo; echo "Kept for inspection: $work"' EXIT

say() { printf '%s\n' "$*" | tee -a "$report"; }
fail() { say "FAILED: $*"; exit 1; }

command -v "$opencode" >/dev/null 2>&1 || fail "OpenCode 2 ($opencode) is not on PATH; set OPENCODE=<binary>"
[ -f "$repo/dist/plugin/entry/server.js" ] || fail "dist/ is missing: run \`npm run build\` first"

say "# opencode-cursor-native in OpenCode 2: smoke report"
say "date:          $(date -u +%Y-%m-%dT%H:%M:%SZ)"
say "opencode:      $("$opencode" --version 2>&1 | head -1)"
say "cursor-agent:  $(command -v cursor-agent >/dev/null 2>&1 && cursor-agent --version 2>&1 | head -1 || echo 'not on PATH')"
say "node:          $(node --version 2>&1)"
say "package:       $(node -p "require('$repo/package.json').version")"
say "platform:      $(uname -sm)"

# The package as users get it: both tarballs, installed into a plugin directory (OpenCode 2 takes
# a configured local plugin as a directory).
pack="$work/pack"
mkdir -p "$pack" "$work/plugins" "$work/config" "$work/ws"
(cd "$repo" && npm pack --silent --pack-destination "$pack" >/dev/null) || fail "npm pack of the root package"
platform_dir="$(node -e "
  const { platform, arch } = process
  const glibc = process.report?.getReport()?.header?.glibcVersionRuntime
  console.log(platform === 'linux' ? \`linux-\${arch}-\${glibc ? 'gnu' : 'musl'}\` : platform === 'win32' ? \`win32-\${arch}-msvc\` : \`\${platform}-\${arch}\`)
")"
binary="$(ls "$repo"/*."$platform_dir".node 2>/dev/null | head -1)"
[ -n "$binary" ] || fail "no native binary for $platform_dir in the repository root"
cp "$binary" "$repo/npm/$platform_dir/" || fail "copying the binary into npm/$platform_dir"
(cd "$repo/npm/$platform_dir" && npm pack --silent --pack-destination "$pack" >/dev/null) || fail "npm pack of the platform package"
(cd "$work/plugins" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund --omit=optional "$pack"/*.tgz >/dev/null) ||
  fail "installing the packed package"
plugin="$work/plugins/node_modules/opencode-cursor-native"
say "installed:     $plugin"

cat >"$work/config/opencode.json" <<EOF
{ "plugins": ["$plugin"], "model": "$model" }
EOF
export OPENCODE_CONFIG_DIR="$work/config"

run() { # name, timeout seconds, prompt
  local name="$1" limit="$2" prompt="$3" started ended code
  started=$(date +%s)
  (cd "$work/ws" && timeout "$limit" "$opencode" run --model "$model" "$prompt") >"$work/$name.out" 2>"$work/$name.err"
  code=$?
  ended=$(date +%s)
  say ""
  say "## $name: exit $code after $((ended - started)) s"
  say "$(tail -c 1500 "$work/$name.out")"
  [ -s "$work/$name.err" ] && say "stderr: $(tail -c 1500 "$work/$name.err")"
  return $code
}

run plain 180 "Reply with exactly the word: PONG" && grep -q PONG "$work/plain.out" &&
  say "plain: ok (PONG)" || say "plain: PROBLEM (no PONG in the answer)"

printf 'the secret word is teapot\n' >"$work/ws/notes.txt"
run tool 300 "List the files in this folder with a tool, then tell me what notes.txt says." &&
  grep -qi teapot "$work/tool.out" && say "tool: ok (the answer quotes notes.txt)" ||
  say "tool: PROBLEM (the answer does not quote notes.txt)"

say ""
say "## interrupt"
(cd "$work/ws" && "$opencode" run --model "$model" "Count slowly from 1 to 500, one number per line.") \
  >"$work/interrupt.out" 2>&1 &
runner=$!
sleep 15
kill -INT "$runner" 2>/dev/null
wait "$runner"
say "opencode run after SIGINT: exit $?"
sleep 3
left="$(pgrep -af "cursor-agent.*$work/ws" || true)"
if [ -z "$left" ]; then say "interrupt: ok (no cursor-agent left running)"; else say "interrupt: PROBLEM, still running:"; say "$left"; fi

log="$(ls -t "${XDG_DATA_HOME:-$HOME/.local/share}"/opencode/log/*.log 2>/dev/null | head -1)"
if [ -n "$log" ]; then
  say ""
  say "## OpenCode's log, lines naming the plugin or cursor-acp ($log)"
  say "$(grep -iE 'opencode-cursor-native|cursor-acp|failed to load plugin' "$log" | tail -40)"
fi
say ""
say "Report written to $report"
