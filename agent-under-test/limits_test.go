package agent

import (
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestResourcesMaxCalls(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name string
		r    Resources
		want int
	}{
		{"file descriptors bound", Resources{OpenFiles: 1024, Memory: 8 * gib, Addrs: 4}, (1024 - 64) / 6},
		{"memory bound", Resources{OpenFiles: 1 << 20, Memory: gib / 2, Addrs: 2}, 64},
		{"no addresses counts one", Resources{OpenFiles: 64 + 300, Addrs: 0}, 100},
		{"fewer descriptors than reserved", Resources{OpenFiles: 32, Memory: 8 * gib, Addrs: 4}, 1},
		{"tiny memory", Resources{Memory: 1 << 20}, 1},
		{"unlimited descriptors", Resources{OpenFiles: ^uint64(0), Addrs: 4}, 1<<31 - 1},
		{"nothing known", Resources{}, unknownMaxCalls},
	} {
		if got := tc.r.MaxCalls(); got != tc.want {
			t.Errorf("%s: %+v: MaxCalls %d, want %d", tc.name, tc.r, got, tc.want)
		}
	}
}

func TestProbeResources(t *testing.T) {
	r := ProbeResources()
	if runtime.GOOS == "linux" && (r.OpenFiles == 0 || r.Memory == 0 || r.Addrs == 0) {
		t.Errorf("probed %+v on linux, want every figure", r)
	}
	if n := DefaultConfig().MaxCalls; n != DefaultMaxCalls() || n < 1 {
		t.Errorf("DefaultConfig().MaxCalls %d, DefaultMaxCalls() %d", n, DefaultMaxCalls())
	}
	if s := r.String(); !strings.Contains(s, "RLIMIT_NOFILE") {
		t.Errorf("String() = %q", s)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want int // problems reported
	}{
		{"default", func(*Config) {}, 0},
		{"explicit no limits", func(c *Config) { c.MaxCalls, c.MaxCallLength = 0, 0 }, 0},
		{"negative max calls", func(c *Config) { c.MaxCalls = -1 }, 1},
		{"every negative at once", func(c *Config) {
			c.MaxCalls, c.MaxCallLength, c.SetupTimeout, c.MaxSubscribers = -1, -time.Second, -time.Second, -1
			c.HTTP = HTTPTimeouts{-1, -1, -1, -1}
		}, 8},
	} {
		cfg := DefaultConfig()
		tc.edit(&cfg)
		errs := cfg.Validate()
		if len(errs) != tc.want {
			t.Errorf("%s: %d problems %v, want %d", tc.name, len(errs), errs, tc.want)
		}
		for _, err := range errs {
			if !errors.Is(err, errNegative) {
				t.Errorf("%s: %v does not wrap errNegative", tc.name, err)
			}
		}
	}
}

func TestExposureWarning(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080} }
	for _, tc := range []struct {
		name  string
		addr  net.Addr
		token string
		want  string // "" = no warning
	}{
		{"loopback v4", tcp("127.0.0.1"), "", ""},
		{"loopback v6", tcp("::1"), "", ""},
		{"all interfaces", tcp("0.0.0.0"), "", "calls are unauthenticated"},
		{"all interfaces v6", tcp("::"), "", "calls are unauthenticated"},
		{"public address", tcp("192.0.2.7"), "", "calls are unauthenticated"},
		{"public with a token", tcp("192.0.2.7"), "secret", "WebRTC calls are unauthenticated"},
		{"loopback with a token", tcp("127.0.0.1"), "secret", ""},
		{"not an IP address", fakeAddr("example.com:80"), "", "calls are unauthenticated"},
	} {
		cfg := DefaultConfig()
		cfg.TwilioAuthToken = tc.token
		got := ExposureWarning(tc.addr, cfg)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: warning %q, want %q", tc.name, got, tc.want)
		}
	}
}

type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

func TestInputKindNames(t *testing.T) {
	for k := kindUnknown + 1; k < numKinds; k++ {
		name := k.String()
		if name == "" || name == "unknown" || parseInputKind(name) != k {
			t.Errorf("kind %d: name %q parses to %v", k, name, parseInputKind(name))
		}
	}
	if parseInputKind("nonsense") != kindUnknown || inputKind(200).String() != "unknown" {
		t.Error("an unknown kind does not read as unknown")
	}
}

func TestCloseReasonFits(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"short", "idle", 4},
		{"exactly", strings.Repeat("a", maxCloseReason), maxCloseReason},
		{"long ascii", strings.Repeat("a", 300), maxCloseReason},
		{"long multibyte", strings.Repeat("é", 100), maxCloseReason - 1}, // 2-byte runes: 61 fit
	} {
		got := closeReason(tc.in)
		if len(got) != tc.want || !strings.HasPrefix(tc.in, got) {
			t.Errorf("%s: %d bytes, want %d", tc.name, len(got), tc.want)
		}
	}
}
