#!/bin/sh
# Fake cursor-agent for `models`: $FAKE_MODELS selects the answer (list, none, auth).
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
  *)
    printf 'Available models\n\n'
    printf 'auto - Auto (current, default)\n'
    printf 'composer-2.5 - Composer  2.5\n'
    printf 'gpt-5.5-high - GPT-5.5 1M\342\200\213 High\n'
    printf '\nTip: use --model <id> to switch.\n'
    ;;
esac
