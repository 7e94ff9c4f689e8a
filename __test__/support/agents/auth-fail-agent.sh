#!/bin/sh
# Fake cursor-agent that is not logged in (as cursor-agent reports it: the message on stderr, exit 1, nothing on stdout).
cat > /dev/null
echo "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable." >&2
exit 1
