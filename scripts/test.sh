#!/usr/bin/env bash
# The whole suite: every package under the race detector (the browser test included) and, at the
# same time, the accuracy table, which is CPU-bound where the race suite mostly waits on real-time
# calls; the table is compiled only with its tag and run without -race, which would slow the
# transcriber's Go side tenfold. Prints the table last and fails if either failed.
set -uo pipefail
go=${GO:-go}
acc=$(mktemp)
trap 'rm -f "$acc"' EXIT
$go test -tags=nolibopusfile,accuracy -run '^TestAccuracy$' -timeout 20m -v ./speech/pool/ >"$acc" 2>&1 &
accpid=$!
$go test -race -timeout 15m ./...
race=$?
wait $accpid
accuracy=$?
cat "$acc"
if [ $race -ne 0 ] || [ $accuracy -ne 0 ]; then
	echo "test: race suite exit $race, accuracy table exit $accuracy"
	exit 1
fi
