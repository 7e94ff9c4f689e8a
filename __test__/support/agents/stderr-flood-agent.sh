#!/bin/sh
# Fake cursor-agent that writes ~8 MiB to stderr before answering (a reader that ignores
# stderr would deadlock it once the pipe buffer is full), then replays $FAKE_AGENT_REPLAY.
cat > /dev/null
i=0
line="Connection lost, reconnecting to https://agentn.global.api5.cursor.sh (attempt 1)... padding padding padding padding padding"
while [ $i -lt 65536 ]; do
  echo "$line" >&2
  i=$((i + 1))
done
echo "stderr flood done" >&2
cat "$FAKE_AGENT_REPLAY"
