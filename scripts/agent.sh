# Sourced by the bench scripts: one reference agent in the background, $agent its pid.

agent=

# await_agent PORT LOG waits up to 10 s for the agent's /metrics; if it never answers, it says
# where the agent's log is and fails.
await_agent() {
	for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/metrics" >/dev/null && return 0; sleep 0.1; done
	echo "$(basename "$0" .sh): the agent did not start, see $2"
	return 1
}

# stop_agent ends the agent, if one runs, and waits for it.
stop_agent() {
	if [ -n "$agent" ]; then
		kill "$agent" 2>/dev/null
		wait "$agent" 2>/dev/null || true
		agent=
	fi
}
