package report

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzDecodeJSONL feeds arbitrary bytes to the turns.jsonl reader: it must never panic, and any
// record it returns must come from a line that parses on its own.
func FuzzDecodeJSONL(f *testing.F) {
	f.Add([]byte(`{"kind":"turn","schema":1,"call":1,"phrase":"7134","marks":{"speech_end":12.5}}` + "\n"))
	f.Add([]byte(`{"kind":"call","schema":1,"connected":true,"connect":40}` + "\n" + `{"kind":"turn","sch`))
	f.Add([]byte(`{"kind":"turn","schema":99}`))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"kind":"turn","wall":"2026-10-08T15:55:00Z","server_transcripts":[null,"x"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		turns, calls, err := DecodeJSONL(bytes.NewReader(data))
		if err == nil && len(bytes.TrimSpace(data)) == 0 && len(turns)+len(calls) > 0 {
			t.Errorf("records from blank input")
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			_, _, _ = ParseLine(line) // must not panic on any line
		}
	})
}

// FuzzRebuild feeds arbitrary bytes to the rebuild of `callfleet report DIR`: reading the records,
// rebuilding the report and rendering it in every format must never panic, whatever a corrupt or
// hostile turns file holds.
func FuzzRebuild(f *testing.F) {
	run := `{"kind":"run","schema":1,"config":{"target":"x","transport":"twilio","steps":[1,2],"step_duration":1000,` +
		`"thresholds":{"underruns_per_min":1,"p95_slack":300,"min_understood":0.99,"max_lateness_p99":10,"max_generator_cpu":0.9}},` +
		`"machine":{"cores":2},"started":"2026-10-08T15:55:00Z"}`
	step := `{"kind":"step","schema":1,"step":0,"n":1,"start":"2026-10-08T15:55:00Z","window":["2026-10-08T15:55:00Z","2026-10-08T15:56:00Z"]}`
	turn := `{"kind":"turn","schema":1,"call":0,"step":0,"turn":1,"phrase":"7134","heard":"7134","wall":"2026-10-08T15:55:01Z",` +
		`"marks":{"speech_end":100,"reply_start":1100,"reply_end":2000},"agent_audio":900,"lateness_hist":[1,2,3]}`
	call := `{"kind":"call","schema":1,"call":0,"step":0,"connected":true,"ended_by":"caller","duration":5000}`
	end := `{"kind":"step_end","schema":1,"step":0,"generator_cpu":0.1,"machine_steal":-1}`
	agent := `{"kind":"agent","schema":1,"step":0,"agent_cpu_milli_per_conv":12,"agent_rss_mib_per_call":3}`
	f.Add([]byte(run + "\n" + step + "\n" + turn + "\n" + call + "\n" + end + "\n" + agent + "\n"))
	f.Add([]byte(run + "\n" + step + "\n" + turn[:40]))
	f.Add([]byte(run + "\n" + `{"kind":"step","step":3,"n":-1}` + "\n"))
	f.Add([]byte(run + "\n" + `{"kind":"step","step":999999999,"n":1}` + "\n"))
	f.Add([]byte(`{"kind":"run","config":{"steps":null,"thresholds":{"min_understood":2}}}`))
	f.Add([]byte(`{"kind":"run_end","stopped":{"reason":"error","error":"<b>"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := DecodeRecords(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("a bytes.Reader does not fail: %v", err)
		}
		r, err := Rebuild(recs)
		if err != nil {
			return
		}
		if r.SkippedLines != len(recs.Skipped) || (recs.RunEnd == nil) != (r.Stopped != nil && r.Stopped.Reason == StopUnfinished) {
			t.Fatalf("skipped %d of %d, stopped %+v with run end %v", r.SkippedLines, len(recs.Skipped), r.Stopped, recs.RunEnd != nil)
		}
		for _, render := range []func(io.Writer) error{
			func(w io.Writer) error { return Text(w, r) },
			func(w io.Writer) error { return Markdown(w, r) },
			func(w io.Writer) error { return HTML(w, r, recs.Turns) },
		} {
			if err := render(io.Discard); err != nil {
				t.Fatalf("render: %v", err)
			}
		}
	})
}

// FuzzRenderReport renders any report.json that decodes, as `callfleet report FILE` does: no
// renderer may panic on a hand-edited or corrupt report.
func FuzzRenderReport(f *testing.F) {
	b, err := json.Marshal(synthReport())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"schema":"callfleet.report/v2","steps":[{"index":1,"n":-3,"latency":null,"turns":{"total":-1}}]}`))
	f.Add([]byte(`{"schema":"callfleet.report/v2","config":{"steps":[1,2,3]},"steps":[{"n":1,"underruns_per_min":1e308,"latency":{"speech_end_to_reply":{"n":5,"p50":-1e300,"p95":1e300}}}],"stopped":{"reason":""}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Report
		if json.Unmarshal(data, &r) != nil {
			return
		}
		for _, render := range []func(io.Writer) error{
			func(w io.Writer) error { return Text(w, &r) },
			func(w io.Writer) error { return Markdown(w, &r) },
			func(w io.Writer) error { return HTML(w, &r, nil) },
		} {
			_ = render(io.Discard) // an error is fine; a panic is not
		}
	})
}
