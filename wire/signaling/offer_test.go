package signaling

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeOffer(t *testing.T) {
	tests := []struct {
		name, in string
		want     Offer
		err      error
	}{
		{"minimal", `{"sdp":"v=0\r\no=-\r\n","type":"offer"}`, Offer{SDP: "v=0\r\no=-\r\n", Type: "offer"}, nil},
		{"all fields", `{"sdp":"v=0\n","type":"offer","pc_id":"p1","restart_pc":true,"request_data":{"a":1},"x":2}`,
			Offer{SDP: "v=0\n", Type: "offer", PCID: "p1", RestartPC: true, RequestData: json.RawMessage(`{"a":1}`)}, nil},
		{"camelCase requestData, null restart", `{"sdp":"v=0\n","type":"offer","restart_pc":null,"requestData":[1]}`,
			Offer{SDP: "v=0\n", Type: "offer", RequestData: json.RawMessage(`[1]`)}, nil},
		{"null request_data", `{"sdp":"v=0\n","type":"offer","request_data":null}`, Offer{SDP: "v=0\n", Type: "offer"}, nil},
		{"answer", `{"sdp":"v=0\n","type":"answer"}`, Offer{}, ErrBadOffer},
		{"no type", `{"sdp":"v=0\n"}`, Offer{}, ErrBadOffer},
		{"no sdp", `{"type":"offer"}`, Offer{}, ErrEmptySDP},
		{"not sdp", `{"sdp":"hello","type":"offer"}`, Offer{}, ErrBadSDP},
		{"v=00", `{"sdp":"v=00\n","type":"offer"}`, Offer{}, ErrBadSDP},
		{"sdp not a string", `{"sdp":1,"type":"offer"}`, Offer{}, ErrMalformed},
		{"trailing garbage", `{"sdp":"v=0\n","type":"offer"} x`, Offer{}, ErrMalformed},
		{"empty", ``, Offer{}, ErrMalformed},
		{"too large", `{"sdp":"v=0\n` + strings.Repeat("a", MaxBodySize) + `","type":"offer"}`, Offer{}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeOffer(strings.NewReader(tt.in))
			if !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestReadWHIPOffer(t *testing.T) {
	tests := []struct {
		name, ct, body string
		err            error
	}{
		{"ok", "application/sdp", offerSDP, nil},
		{"ok with params", "Application/SDP; charset=utf-8", offerSDP, nil},
		{"json", "application/json", offerSDP, ErrContentType},
		{"no content type", "", offerSDP, ErrContentType},
		{"empty", "application/sdp", "", ErrEmptySDP},
		{"not sdp", "application/sdp", "x=1\r\n", ErrBadSDP},
		{"too large", "application/sdp", "v=0\n" + strings.Repeat("a", MaxBodySize), ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/whip", strings.NewReader(tt.body))
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			got, err := ReadWHIPOffer(req)
			if !errors.Is(err, tt.err) || (tt.err == nil && (err != nil || got != tt.body)) {
				t.Fatalf("ReadWHIPOffer = %q, %v; want err %v", got, err, tt.err)
			}
		})
	}
}

func FuzzDecodeOffer(f *testing.F) {
	f.Add([]byte(`{"sdp":"v=0\r\n","type":"offer","pc_id":"p","restart_pc":false,"requestData":{"k":"v"}}`))
	f.Add([]byte(`{"sdp":"v=0\n","type":"offer","request_data":"s"}`))
	f.Add([]byte(`{"type":"offer","sdp":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := DecodeOffer(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if o.Type != TypeOffer || ValidateSDP(o.SDP) != nil {
			t.Fatalf("accepted invalid offer %#v", o)
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("Marshal(%#v): %v", o, err)
		}
		o2, err := DecodeOffer(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("re-decode of %s: %v", b, err)
		}
		// RequestData is compared as JSON values; Marshal may re-space or re-escape it.
		var r1, r2 any
		_ = json.Unmarshal(o.RequestData, &r1)
		_ = json.Unmarshal(o2.RequestData, &r2)
		o.RequestData, o2.RequestData = nil, nil
		if !reflect.DeepEqual(o, o2) || !reflect.DeepEqual(r1, r2) {
			t.Fatalf("round trip differs: %#v vs %#v", o, o2)
		}
	})
}
