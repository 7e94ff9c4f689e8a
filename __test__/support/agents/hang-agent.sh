#!/bin/sh
# Fake cursor-agent that never finishes: starts a grandchild (in the agent's process group), writes
# "<own pid> <grandchild pid>" to $FAKE_AGENT_PID_FILE, prints an init line and one text delta,
# then sleeps.
sleep 1000 &
grandchild=$!
echo "$$ $grandchild" > "$FAKE_AGENT_PID_FILE"
echo '{"type":"system","subtype":"init","session_id":"hang-session","model":"Auto"}'
echo '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Working"}]},"session_id":"hang-session","timestamp_ms":1787030681469}'
wait
