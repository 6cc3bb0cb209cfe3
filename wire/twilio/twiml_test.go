package twilio

import (
	"errors"
	"maps"
	"testing"

	"github.com/callfleet/callfleet/internal/golden"
)

func TestStreamTwiML(t *testing.T) {
	params := map[string]string{"to": "+1 555", "from": `a"b<c>&'d`, "line": "x\ny"}
	got := StreamTwiML("wss://agent.example/ws?a=1&b=2", params)
	golden.Check(t, "stream.twiml", got)
	url, back, err := ParseStreamURL(got)
	if err != nil {
		t.Fatal(err)
	}
	if url != "wss://agent.example/ws?a=1&b=2" || !maps.Equal(back, params) {
		t.Fatalf("ParseStreamURL = %q, %v", url, back)
	}

	bare := StreamTwiML("wss://h/ws", nil)
	golden.Check(t, "stream_bare.twiml", bare)
	url, back, err = ParseStreamURL(bare)
	if err != nil || url != "wss://h/ws" || back == nil || len(back) != 0 {
		t.Fatalf("ParseStreamURL(bare) = %q, %v, %v", url, back, err)
	}
}

func TestParseStreamURL(t *testing.T) {
	tests := []struct {
		name, in string
		url      string
		params   map[string]string
		err      error
	}{
		{"start stream", `<Response><Start><Stream name="x" url="wss://a/b"/></Start><Say>hi</Say></Response>`, "wss://a/b", map[string]string{}, nil},
		{"connect wins over start", `<Response><Start><Stream url="wss://s"/></Start><Connect><Stream url="wss://c"><Parameter name="k" value="v"/></Stream></Connect></Response>`,
			"wss://c", map[string]string{"k": "v"}, nil},
		{"whitespace and header", "<?xml version=\"1.0\"?>\n<Response>\n  <Connect>\n    <Stream url=\"wss://x\" />\n  </Connect>\n</Response>\n", "wss://x", map[string]string{}, nil},
		{"no stream", `<Response><Say>hi</Say></Response>`, "", nil, ErrMissingField},
		{"no url", `<Response><Connect><Stream/></Connect></Response>`, "", nil, ErrMissingField},
		{"wrong root", `<Other><Connect><Stream url="wss://x"/></Connect></Other>`, "", nil, ErrMalformed},
		{"not xml", `{"event":"start"}`, "", nil, ErrMalformed},
		{"unterminated", `<Response><Connect>`, "", nil, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, params, err := ParseStreamURL([]byte(tt.in))
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if url != tt.url || !maps.Equal(params, tt.params) {
				t.Fatalf("got %q %v, want %q %v", url, params, tt.url, tt.params)
			}
		})
	}
}
