#!/bin/sh
# Fake cursor-agent that is not logged in (protocol reference section 6: stderr, exit 1, no stdout).
cat > /dev/null
echo "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable." >&2
exit 1
