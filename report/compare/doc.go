// Package compare sets two runs side by side and gates the candidate against the base: every
// latency's p50/p95/p99, turns understood, clean calls, underruns, capacity and the agent's CPU and
// RSS per call, per step (matched by N) and overall, each with its change; then rules such as
// `p95(speech_end_to_reply) <= +10%` decide whether the candidate regressed.
//
// # Rules
//
// Rules are parsed apart from being evaluated (as k6 parses its thresholds), so a bad rule is an
// error naming it before anything is compared:
//
//	rule     = quantity [ scope ] op limit
//	quantity = "p" number "(" metric ")"     a latency percentile, 0 < number <= 100, in ms
//	         | "understood" | "clean"        share of turns understood, of calls clean
//	         | "underruns"                   underruns per minute of agent audio
//	         | "capacity"                    the run's capacity, in calls (overall only)
//	         | "agent_cpu" | "agent_rss"     thousandths of a core per conversation, MiB per call
//	scope    = "{" ( "overall" | "each" | "n=" integer ) "}"    default overall
//	op       = "<" | "<=" | ">" | ">="
//	limit    = "base" [ sign amount ]        the base's value, moved by amount
//	         | sign amount                   short for base sign amount
//	         | amount                        an absolute limit
//	amount   = number [ "ms" | "s" | "%" | "pp" ]
//
// A signed "%" is relative to the base's value (+10% of it); an unsigned "%" is an absolute
// share (understood >= 99.9%) and "pp" moves a share by percentage points (clean >= base-0.5pp).
// "ms" and "s" are for latencies, whose bare numbers are milliseconds. Overall pools every
// measured sample and sums every count over all steps; "each" checks every N both runs have, and
// fails when any step does; "n=8" checks the step of 8 calls.
//
// # Significance
//
// A latency rule relative to the base fails only when the change is also significant: a one-sided
// Mann-Whitney U test (normal approximation, tie and continuity corrected) of the candidate's
// per-turn samples against the base's, read from the turns file beside each report, must reject
// "no worse" at the gate's alpha (0.05 by default). A violated rule that is not significant is
// reported as noise and passes. Absolute limits and the other quantities are checked as they are.
package compare
