#!/bin/sh
# Fake cursor-agent for `models`: $FAKE_MODELS selects the answer (list, parameters, none, auth).
if [ "$1" != "models" ]; then
  echo "unexpected arguments: $*" >&2
  exit 2
fi
case "$FAKE_MODELS" in
  none)
    echo "No models available for this account."
    ;;
  auth)
    echo "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable." >&2
    exit 1
    ;;
  parameters)
    # Newer builds: ids with parameters, and tips naming example ids after the list.
    printf 'Available models\n\n'
    printf 'claude-opus-4-8 - Claude Opus 4.8\n'
    printf 'claude-opus-4-8[context=1m,effort=high] - Claude Opus 4.8 1M High\n'
    printf '\nTip: use --model <id> to switch.\n'
    printf "Tip: models take parameters, e.g.\n  agent --model 'claude-opus-4-8[context=1m,effort=high,fast=false]' - see --help\n"
    ;;
  *)
    printf 'Available models\n\n'
    printf 'auto - Auto (current, default)\n'
    printf 'composer-2.5 - Composer  2.5\n'
    printf 'gpt-5.5-high - GPT-5.5 1M\342\200\213 High\n'
    printf '\nTip: use --model <id> to switch.\n'
    ;;
esac
