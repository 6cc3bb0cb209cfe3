#!/usr/bin/env bash
# Measures the reference agent's cost per conversation: runs `callfleet agent` as its own process
# and ramps callers against it over each transport, scraping the agent's /metrics, so CPU and RSS
# in the reports are the agent's alone. Usage: scripts/bench-agent.sh [steps] [step-duration]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-4,8,16,32}
dur=${2:-30s}
port=${BENCH_PORT:-18555}
out=results/bench-agent-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
bin/callfleet agent --listen 127.0.0.1:$port >"$out/agent.log" 2>&1 &
agent=$!
trap 'kill $agent 2>/dev/null; wait $agent 2>/dev/null || true' EXIT
for i in $(seq 100); do curl -sf http://127.0.0.1:$port/metrics >/dev/null && break; sleep 0.1; done
curl -sf http://127.0.0.1:$port/metrics >/dev/null || { echo "bench-agent: the agent did not start, see $out/agent.log"; exit 1; }
bin/callfleet run --no-tui --transport twilio --target ws://127.0.0.1:$port/twilio/ws \
	--events-url "http://127.0.0.1:$port/calls/{callSid}/events" --steps "$steps" --step-duration "$dur" \
	--ramp 5s --warmup 5s --seed 1 --out "$out/twilio" | sed -n '/^N /,/^$/p; /^agent cost/p'
bin/callfleet run --no-tui --transport webrtc --target http://127.0.0.1:$port/api/offer \
	--steps "$steps" --step-duration "$dur" --ramp 5s --warmup 5s --seed 1 --out "$out/webrtc" | sed -n '/^N /,/^$/p; /^agent cost/p'
echo "reports in $out (agent CPU m/conv and RSS/call are the agent process's own)"
