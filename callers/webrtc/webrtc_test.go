package webrtc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/speech/pool"
	"github.com/callfleet/callfleet/wire/rtvi"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(peerProcessEnv) != "" {
		os.Exit(runPeerProcess())
	}
	goleak.VerifyTestMain(m)
}

const echoDelay = 100 * time.Millisecond

// toneClip is a clip of secs seconds of a 440 Hz tone at -12 dBFS, encoded as Opus.
func toneClip(t testing.TB, secs float64) *pool.Clip {
	t.Helper()
	n := int(secs*50) * pool.FrameSamples
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/16000))
	}
	c := &pool.Clip{Digits: "tone", PCM: pcm, First: 0, Last: n - 1}
	if err := c.Encode([]pool.Codec{pool.CodecOpus}, 32000); err != nil {
		t.Fatal(err)
	}
	return c
}

func startPeer(t testing.TB, delay time.Duration) *testPeer {
	t.Helper()
	p, err := newTestPeer(delay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p
}

func newTestDialer(t testing.TB, cfg Config) *Dialer {
	t.Helper()
	d, err := NewDialer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func dial(t testing.TB, d *Dialer, call int) *Conn {
	t.Helper()
	c, err := d.Dial(testCtx(t, 10*time.Second), callers.CallInfo{Call: call})
	if err != nil {
		t.Fatal(err)
	}
	return c.(*Conn)
}

// talk sends clip then silence for total frames at the real 20 ms pace and collects the agent's
// audio meanwhile; it returns the chunks and when the first frame went out.
func talk(t *testing.T, c *Conn, clip *pool.Clip, total int) ([]callers.Chunk, time.Time) {
	t.Helper()
	var got []callers.Chunk
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for i := 0; i < total; {
		select {
		case ch, ok := <-c.Audio():
			if !ok {
				t.Fatalf("audio closed after %d frames sent", i)
			}
			got = append(got, ch)
		case <-tick.C:
			var err error
			if i < len(clip.Opus) {
				err = c.Send(clip, i)
			} else {
				err = c.SendSilence()
			}
			if err != nil {
				t.Fatalf("frame %d: %v", i, err)
			}
			i++
		}
	}
	// Collect the echo's tail.
	for end := time.After(echoDelay + 300*time.Millisecond); ; {
		select {
		case ch := <-c.Audio():
			got = append(got, ch)
		case <-end:
			return got, start
		}
	}
}

func TestDialEchoAndEvents(t *testing.T) {
	for _, kind := range []string{SignalingSmallWebRTC, SignalingWHIP} {
		for _, mux := range []bool{false, true} {
			name := kind + map[bool]string{false: "/sockets", true: "/mux"}[mux]
			t.Run(name, func(t *testing.T) {
				p := startPeer(t, echoDelay)
				url := p.offerURL()
				if kind == SignalingWHIP {
					url = p.whipURL()
				}
				d := newTestDialer(t, Config{Signaling: kind, URL: url, APIOptions: APIOptions{UDPMux: mux}})
				conn, err := d.Dial(testCtx(t, 10*time.Second), callers.CallInfo{Call: 1, Params: map[string]string{"caller": "7"}})
				if err != nil {
					t.Fatal(err)
				}
				c := conn.(*Conn)

				switch id := c.ID(); {
				case kind == SignalingSmallWebRTC && id != "pc-1",
					kind == SignalingWHIP && id != p.whipURL()+"/pc-1":
					t.Fatalf("ID = %q", id)
				}
				select {
				case <-c.Ready():
				case <-time.After(2 * time.Second): // before ReadyTimeout: bot-ready did it
					t.Fatal("no bot-ready")
				}

				clip := toneClip(t, 1)
				chunks, start := talk(t, c, clip, 75)
				checkEcho(t, chunks, start, len(clip.Opus), 75)
				checkEvents(t, c)

				if st := c.Stats(); st.Sent != 75 || st.Lost != 0 || st.AudioDropped != 0 {
					t.Errorf("stats %+v", st)
				}
				if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
					t.Fatal(err)
				}
				checkEnded(t, c, nil)
				if err := c.SendSilence(); !errors.Is(err, ErrClosed) {
					t.Errorf("SendSilence after Close: %v", err)
				}
				p.mu.Lock()
				if want := map[bool][]string{true: {`{"caller":"7"}`}}[kind == SignalingSmallWebRTC]; !slices.Equal(p.reqData, want) {
					t.Errorf("request_data %q", p.reqData)
				}
				p.mu.Unlock()
				labels, deletes := p.seen()
				if !slices.Equal(labels, []string{DataChannelLabel}) {
					t.Errorf("data channel labels %q", labels)
				}
				if want := map[bool]int{true: 1}[kind == SignalingWHIP]; deletes != want {
					t.Errorf("%d WHIP DELETEs, want %d", deletes, want)
				}
			})
		}
	}
}

// checkEcho checks the echoed tone: about as many frames as sent, loud where the tone was, and
// no earlier than the peer's delay.
func checkEcho(t *testing.T, chunks []callers.Chunk, start time.Time, toneFrames, sent int) {
	t.Helper()
	if len(chunks) < sent-2 || len(chunks) > sent {
		t.Errorf("%d chunks back, sent %d", len(chunks), sent)
	}
	loud, first := 0, -1
	for i, ch := range chunks {
		if len(ch.PCM) != 320 {
			t.Fatalf("chunk %d has %d samples", i, len(ch.PCM))
		}
		if audio.RMS(ch.PCM) > 2000 { // the tone is ~5660 RMS
			loud++
			if first < 0 {
				first = i
			}
		}
	}
	if loud < toneFrames-3 {
		t.Errorf("%d loud chunks, want about %d", loud, toneFrames)
	}
	if first >= 0 {
		if lag := chunks[first].At.Sub(start); lag < echoDelay || lag > echoDelay+500*time.Millisecond {
			t.Errorf("first echo after %v, peer delay %v", lag, echoDelay)
		}
	}
}

func checkEvents(t *testing.T, c *Conn) {
	t.Helper()
	var types []string
	for len(types) < 2 {
		select {
		case m := <-c.Events():
			types = append(types, m.Type)
			if m.Type == rtvi.TypeUserTranscription {
				if text, final, err := m.Transcription(); err != nil || text != testTranscript || !final {
					t.Errorf("transcription %q %v %v", text, final, err)
				}
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("events so far %q", types)
		}
	}
	if !slices.Equal(types, []string{rtvi.TypeBotReady, rtvi.TypeUserTranscription}) {
		t.Errorf("events %q", types)
	}
}

// checkEnded checks that the call is over: Done closed with want, Audio and Events closed.
func checkEnded(t *testing.T, c *Conn, want error) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed")
	}
	if err := c.Err(); !errors.Is(err, want) || (want == nil && err != nil) {
		t.Errorf("Err = %v, want %v", err, want)
	}
	deadline := time.After(5 * time.Second)
	for open := 2; open > 0; {
		select {
		case _, ok := <-c.Audio():
			if !ok {
				open--
			}
		case _, ok := <-c.Events():
			if !ok {
				open--
			}
		case <-deadline:
			t.Fatal("Audio or Events not closed")
		}
	}
}

// TestCloseLeavesNoGoroutines checks a whole call's life, peer included, for leaks on its own
// (TestMain checks the whole run as well).
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := goleak.IgnoreCurrent()
	p, err := newTestPeer(0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDialer(Config{URL: p.offerURL(), APIOptions: APIOptions{UDPMux: true}})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, d, 1)
	<-c.Ready()
	if _, ok := <-c.Events(); !ok {
		t.Fatal("no events")
	}
	for range 10 {
		if err := c.SendSilence(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	p.close()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t, before)
}

func TestAgentHangup(t *testing.T) {
	for _, peerLeft := range []bool{false, true} {
		t.Run(map[bool]string{false: "dtls-close", true: "peerLeft"}[peerLeft], func(t *testing.T) {
			p := startPeer(t, 0)
			d := newTestDialer(t, Config{URL: p.offerURL()})
			c := dial(t, d, 1)
			<-c.Ready()
			ended := make(chan time.Duration, 1)
			start := time.Now()
			go func() {
				select {
				case <-c.Done():
					ended <- time.Since(start)
				case <-time.After(10 * time.Second):
					ended <- -1
				}
			}()
			if err := p.hangup(c.ID(), peerLeft); err != nil {
				t.Fatal(err)
			}
			checkEnded(t, c, nil)
			// The idle scenario times the agent's hang-up from Done: it must not wait for pion's own
			// teardown (~400 ms) after the agent's close has arrived.
			took := <-ended
			if took < 0 || took > 150*time.Millisecond {
				t.Errorf("Done %v after the agent began hanging up, want within 150ms", took)
			}
			t.Logf("Done %v after the agent hung up", took)
			if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReadyWithoutRTVI(t *testing.T) {
	p := startPeer(t, 0)
	p.noRTVI = true
	d := newTestDialer(t, Config{URL: p.offerURL(), ReadyTimeout: 200 * time.Millisecond})
	start := time.Now()
	c := dial(t, d, 1)
	select {
	case <-c.Ready():
		if el := time.Since(start); el < 200*time.Millisecond {
			t.Errorf("Ready after %v, before ReadyTimeout", el)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Ready never closed")
	}
	if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
}

func TestPacketLoss(t *testing.T) {
	p := startPeer(t, 0)
	p.dropEvery = 10
	d := newTestDialer(t, Config{URL: p.offerURL()})
	c := dial(t, d, 1)
	chunks, _ := talk(t, c, toneClip(t, 1), 100)
	st := c.Stats()
	if st.Lost < 8 || st.Concealed != st.Lost || st.Received+st.Lost < 98 {
		t.Errorf("stats %+v", st)
	}
	if len(chunks) < 98 { // concealment fills the gaps
		t.Errorf("%d chunks for 100 frames with 10%% loss", len(chunks))
	}
	if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
}

func TestDialDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	for _, kind := range []string{SignalingSmallWebRTC, SignalingWHIP} {
		d := newTestDialer(t, Config{Signaling: kind, URL: srv.URL, HTTPClient: srv.Client()})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		start := time.Now()
		_, err := d.Dial(ctx, callers.CallInfo{Call: 3})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want deadline exceeded", kind, err)
		}
		if el := time.Since(start); el > time.Second {
			t.Errorf("%s: Dial returned after %v", kind, el)
		}
	}
}

func TestDialRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	d := newTestDialer(t, Config{URL: srv.URL, HTTPClient: srv.Client()})
	if _, err := d.Dial(testCtx(t, 5*time.Second), callers.CallInfo{}); err == nil {
		t.Fatal("Dial to a 404 succeeded")
	}
}

func TestConfigAndFrames(t *testing.T) {
	if _, err := NewDialer(Config{Signaling: "sip", URL: "http://x"}); !errors.Is(err, ErrConfig) {
		t.Errorf("bad signaling: %v", err)
	}
	if _, err := NewDialer(Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("no url: %v", err)
	}
	d := newTestDialer(t, Config{URL: "http://127.0.0.1:1/api/offer"})
	if d.Name() != "webrtc" || d.Codec() != pool.CodecOpus || d.JitterBuffer() != DefaultJitterBuffer {
		t.Errorf("dialer %s %v %v", d.Name(), d.Codec(), d.JitterBuffer())
	}

	p := startPeer(t, 0)
	d = newTestDialer(t, Config{URL: p.offerURL()})
	c := dial(t, d, 1)
	clip := toneClip(t, 0.1)
	for _, i := range []int{-1, len(clip.Opus)} {
		if err := c.Send(clip, i); !errors.Is(err, ErrFrame) {
			t.Errorf("Send frame %d: %v", i, err)
		}
	}
	if err := c.Send(nil, 0); !errors.Is(err, ErrFrame) {
		t.Errorf("Send nil clip: %v", err)
	}
	if c.Flush() != nil {
		t.Error("Flush not nil")
	}
	c.Played(320)
	if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(testCtx(t, 5*time.Second)); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSilencePacket(t *testing.T) {
	pkt, err := silencePacket()
	if err != nil {
		t.Fatal(err)
	}
	dec, err := audio.NewOpusDecoderRate(16000)
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := dec.Decode(pkt)
	if err != nil || len(pcm) != 320 || audio.RMS(pcm) > 1 {
		t.Fatalf("silence decodes to %d samples, rms %.1f, %v", len(pcm), audio.RMS(pcm), err)
	}
	t.Logf("silence packet: %d bytes", len(pkt))
}

// TestConcurrentCalls dials calls at once on the shared API and has them send the same clip, as
// the pool's callers do, checking each gets its own echo back.
func TestConcurrentCalls(t *testing.T) {
	const calls = 5
	p := startPeer(t, 0)
	d := newTestDialer(t, Config{URL: p.offerURL()})
	clip := toneClip(t, 0.5)
	errs := make(chan error, calls)
	for i := range calls {
		go func() {
			errs <- func() error {
				conn, err := d.Dial(testCtx(t, 10*time.Second), callers.CallInfo{Call: i})
				if err != nil {
					return err
				}
				c := conn.(*Conn)
				defer c.Close(context.Background())
				for f := range clip.Opus {
					if err := c.Send(clip, f); err != nil {
						return err
					}
					time.Sleep(20 * time.Millisecond)
				}
				loud := 0
				for timeout := time.After(time.Second); loud < len(clip.Opus)-3; {
					select {
					case ch := <-c.Audio():
						if audio.RMS(ch.PCM) > 2000 {
							loud++
						}
					case <-timeout:
						return fmt.Errorf("call %d: %d loud chunks of %d", i, loud, len(clip.Opus))
					}
				}
				return nil
			}()
		}()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
