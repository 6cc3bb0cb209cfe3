package report

import (
	"bytes"
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
