#!/bin/sh
# The shape of the real cursor-agent: a shell script that runs Node *without* `exec`, so the agent
# proper is a grandchild of whoever started the script, in the script's process group.
here=$(dirname "$0")
FAKE_CURSOR_WRAPPER_PID=$$ node "$here/fake-cursor-agent.mjs" "$@"
