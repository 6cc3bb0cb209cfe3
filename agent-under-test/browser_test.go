package agent

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/callfleet/callfleet/internal/chromium"

	"github.com/chromedp/chromedp"

	"github.com/callfleet/callfleet/audio"
	"github.com/callfleet/callfleet/speech/pool"
)

// callerWAV writes the clip as Chromium's fake microphone plays it: 48 kHz mono 16-bit, 1.5 s
// of silence before the phrase and 3 s after, so that the agent's end-of-turn comes before the
// file loops.
func callerWAV(t *testing.T, clip *pool.Clip) string {
	t.Helper()
	const rate = 48000
	pcm := make([]int16, rate*3/2, rate*6+len(clip.PCM)*3)
	pcm = append(pcm, audio.Resample(clip.PCM, pool.Rate, rate)...)
	pcm = append(pcm, make([]int16, rate*3)...)
	path := filepath.Join(t.TempDir(), "caller.wav")
	if err := audio.WriteWAVFile(path, &audio.Clip{Rate: rate, Channels: 1, Samples: pcm}); err != nil {
		t.Fatal(err)
	}
	return path
}

// browser starts a headless Chromium whose microphone plays wav; it stops with the test.
func browser(t *testing.T, wav string) context.Context {
	t.Helper()
	opts := chromium.Options(t,
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", wav),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	// The first run starts the browser, for as long as ctx lives: no deadline on it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", chromium.Path, err)
	}
	return ctx
}

// screenshot saves the page for a failed test to look at.
func screenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	path := filepath.Join(t.TempDir(), "page.png")
	if err := os.WriteFile(path, png, 0o644); err == nil {
		t.Logf("screenshot of the page: %s", path)
	}
	if status, err := chromedp.Run(sctx, chromedp.Evaluate[string](`document.getElementById("status").textContent`)); err == nil {
		t.Logf("page status: %q", status)
	}
}

// TestPage checks the page GET / serves is whole: the call controls, the script inlined and
// allowed by its hash, nothing fetched from elsewhere.
func TestPage(t *testing.T) {
	_, hs := startAgent(t, DefaultConfig())
	resp, err := http.Get(hs.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	page := string(body)
	for _, want := range []string{`id="call"`, `id="hangup"`, "<audio", "/api/offer", "client-ready", "getUserMedia"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"/*SCRIPT*/", "http://", "https://", "src=\""} {
		if strings.Contains(page, bad) {
			t.Errorf("page has %q: not self-contained", bad)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'sha256-") {
		t.Errorf("CSP %q", csp)
	}
}

// TestBrowserCall is a real browser on the page at GET /: Chromium's fake microphone says a
// phrase, the page shows what the agent heard, Hang up ends the call.
func TestBrowserCall(t *testing.T) {
	_, p := fixtures(t)
	clip := p.Clip(1)
	wav := callerWAV(t, clip)
	noLeaks(t)
	srv, hs := startAgent(t, DefaultConfig())
	ctx := browser(t, wav)

	run, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	start := time.Now()
	err := chromedp.Do(run, chromedp.Navigate(hs.URL+"/"), chromedp.Click(chromedp.CSS("#call")))
	if err != nil {
		screenshot(t, ctx)
		t.Fatalf("open the page and call: %v", err)
	}
	heard, err := chromedp.Run(run, chromedp.Poll[string](
		`(document.querySelector("#log li.user") || {}).textContent`,
		chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		screenshot(t, ctx)
		t.Fatalf("no user transcript on the page within 30 s: %v", err)
	}
	t.Logf("page showed %q %v after the click", heard, time.Since(start))
	if strings.ReplaceAll(heard, " ", "") != clip.Digits {
		screenshot(t, ctx)
		t.Errorf("page shows the caller said %q, want %q", heard, clip.Digits)
	}
	if srv.Live() != 1 {
		t.Errorf("live = %d during the browser call", srv.Live())
	}
	checkPlayed(t, ctx, run)
	if err := chromedp.Do(run, chromedp.Click(chromedp.CSS("#hangup"))); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("hang up: %v", err)
	}
	t.Logf("call ended %v after Hang up", awaitLive(t, srv, 0, 5*time.Second))
}

// checkPlayed waits for the agent's reply to end and checks that Chromium received and played it:
// the inbound audio stream's packets and its played-out energy (WebRTC stats).
func checkPlayed(t *testing.T, ctx, run context.Context) {
	t.Helper()
	_, err := chromedp.Run(run, chromedp.Poll[bool](
		`document.querySelector("#log li.bot") !== null && document.getElementById("status").textContent === "your turn"`,
		chromedp.WithPollingTimeout(15*time.Second), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		screenshot(t, ctx)
		t.Fatalf("no end of the agent's reply on the page: %v", err)
	}
	type inbound struct {
		Packets float64 `json:"packets"`
		Energy  float64 `json:"energy"`
	}
	in, err := chromedp.Run(run, chromedp.Evaluate[inbound](`pc.getStats().then((stats) => {
		let r = { packets: 0, energy: 0 };
		stats.forEach((s) => {
			if (s.type === "inbound-rtp" && s.kind === "audio") r = { packets: s.packetsReceived, energy: s.totalAudioEnergy || 0 };
		});
		return r;
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("webrtc stats: %v", err)
	}
	t.Logf("Chromium received %v packets of agent audio, played energy %.3g", in.Packets, in.Energy)
	if in.Packets < 100 || in.Energy <= 0 {
		t.Errorf("Chromium received %v packets, played energy %v: the reply was not heard", in.Packets, in.Energy)
	}
}
