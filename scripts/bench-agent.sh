#!/usr/bin/env bash
# Measures the reference agent's cost per conversation: runs `callfleet agent` as its own process
# and ramps callers against it over each transport, scraping the agent's /metrics, so CPU and RSS
# in the reports are the agent's alone. Each transport gets a fresh agent: RSS per call counts from
# the agent's idle RSS, and a Go heap grown by one transport's ramp is not handed back to the OS in
# time for the next one's (it read as negative MiB per call). The last default step is the seeds'
# headline load, 45 conversations. Usage: scripts/bench-agent.sh [steps] [step-duration]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-4,8,16,32,45}
dur=${2:-30s}
port=${BENCH_PORT:-18555}
out=results/bench-agent-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
. scripts/agent.sh
trap stop_agent EXIT

for tr in twilio webrtc; do
	bin/callfleet agent --listen 127.0.0.1:$port >"$out/agent-$tr.log" 2>&1 &
	agent=$!
	await_agent $port "$out/agent-$tr.log"
	if [ $tr = twilio ]; then
		target=(--target ws://127.0.0.1:$port/twilio/ws --events-url "http://127.0.0.1:$port/calls/{callSid}/events")
	else
		target=(--target http://127.0.0.1:$port/api/offer)
	fi
	echo "== $tr, a fresh agent, steps $steps of $dur"
	bin/callfleet run --no-tui --transport $tr "${target[@]}" --steps "$steps" --step-duration "$dur" \
		--ramp 5s --warmup 5s --seed 1 --out "$out/$tr" | sed -n '/^N /,/^$/p; /^agent cost/p'
	stop_agent
done
echo "reports in $out (agent CPU m/conv and RSS/call are the agent process's own)"
