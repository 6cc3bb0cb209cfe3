#!/usr/bin/env bash
# How many concurrent callers one core drives: the callers run pinned to CPU 0 with their own
# transcription of every reply on, against `callfleet agent --echo` pinned to CPU 1 (it answers
# each turn with the caller's own speech, so the agent costs next to nothing and the turn shape
# stays real). Per step it prints the generator's send lateness and CPU; callers per core is the
# largest step whose send lateness p99 stays <= 5 ms. Needs 2 cores, and a quiet machine.
# BENCH_TUI=1 runs the callers with the live view on, in a tmux pane, to show the view adds no
# lateness. Usage: scripts/bench-fleet.sh [twilio-steps] [webrtc-steps] [step-duration]
set -euo pipefail
cd "$(dirname "$0")/.."
tw_steps=${1:-50,100,150,200}
rtc_steps=${2:-50,75,100,125}
dur=${3:-30s}
port=${BENCH_PORT:-18556}
if [ "$(nproc)" -lt 2 ]; then echo "bench-fleet: needs 2 cores (callers on one, the echo agent on the other)"; exit 1; fi
out=results/bench-fleet-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
. scripts/agent.sh
trap stop_agent EXIT
taskset -c 1 bin/callfleet agent --echo --idle-prompt 0 --listen 127.0.0.1:$port >"$out/agent.log" 2>&1 &
agent=$!
await_agent $port "$out/agent.log"

# per_core prints the generator table, the largest step with send lateness p99 <= 5 ms, and the
# judging capacity: the largest such step whose every turn the callers' ears judged (no unjudged
# turn), the figure that counts, since a caller that cannot hear the reply checks nothing.
per_core() {
	sed -n '/^the load generator/,/^$/p' "$1"
	awk -F '  +' '/^the load generator/{on=1; next} on && /^$/{exit} on && $1 ~ /^[0-9]+$/ {
		split($2, a, "/"); if (a[2] + 0 <= 5 && $4 + 0 < 100) { best = $1; if ($8 == "0") judged = $1 } }
		END { printf "callers per core (send lateness p99 <= 5 ms): %s\n", best ? best : "below the first step"
			printf "judging capacity per core (that, and every turn judged): %s\n\n", judged ? judged : "below the first step" }' "$1"
}

for tr in twilio webrtc; do
	if [ $tr = twilio ]; then target=ws://127.0.0.1:$port/twilio/ws; steps=$tw_steps; else target=http://127.0.0.1:$port/api/offer; steps=$rtc_steps; fi
	echo "== $tr callers on one core, steps $steps of $dur"
	run=(taskset -c 0 bin/callfleet run --transport $tr --target "$target" --steps "$steps" --step-duration "$dur"
		--ramp 10s --warmup 5s --seed 1 --scrape none --out "$out/$tr")
	if [ "${BENCH_TUI:-}" = 1 ]; then
		tmux new-session -d -s "bench-fleet-$tr" -x 160 -y 48 "${run[*]} 2>$out/$tr.err; tmux wait-for -S bench-fleet-$tr"
		tmux wait-for "bench-fleet-$tr"
	else
		"${run[@]}" --no-tui >/dev/null 2>"$out/$tr.err" || true
	fi
	bin/callfleet report "$out/$tr/report.json" >"$out/$tr.txt" || { cat "$out/$tr.err"; exit 1; }
	per_core "$out/$tr.txt"
done
echo "reports in $out (the echo agent publishes no transcripts: only the caller's check applies over twilio; over webrtc the server check fails by design)"
