package report

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/callfleet/callfleet/callers"
	"github.com/callfleet/callfleet/internal/chromium"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestHTMLInChromium opens the report in headless Chromium, offline, and checks every chart
// is drawn with a size and the page asked the network for nothing.
func TestHTMLInChromium(t *testing.T) {
	dir := t.TempDir()
	run := synthRun()
	if err := WriteRun(filepath.Join(dir, FileName), run); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, run.Report, nil, Section{Title: "Pause probe", Head: []string{"pause"}, Rows: [][]string{{"300 ms"}}}); err != nil {
		t.Fatal(err)
	}
	opts := chromium.Options(t, chromedp.WindowSize(1280, 900))
	var mu sync.Mutex
	var requests []string
	record := func(u string) {
		mu.Lock()
		requests = append(requests, u)
		mu.Unlock()
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	// The listener is there before the first command, so it sees every request of the tab.
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf), chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			record(e.Request.URL)
		case network.EventRequestWillBeSent:
			record(e.Request.URL)
		}
	}))
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start %s: %v", chromium.Path, err)
	}
	ctx, cancel := context.WithTimeout(bctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, HTMLFileName)),
		chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('figure svg').length`))
	if err != nil {
		t.Fatal(err)
	}
	// Drawn: laid out with a size, and holding the paths and labels of a plot.
	sized, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll('figure svg')].filter(s => {
		const r = s.getBoundingClientRect();
		return r.width > 200 && r.height > 100 && s.querySelectorAll('path, text').length > 10;
	}).length`))
	if err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	capacity, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#capacity")))
	if err != nil {
		t.Fatal(err)
	}
	probe, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("section.extra h2")))
	if err != nil {
		t.Fatal(err)
	}
	if charts != len(allCharts) || sized != charts {
		t.Errorf("%d charts, %d drawn with a size; want %d", charts, sized, len(allCharts))
	}
	if !strings.Contains(title, "capacity 2 calls") || !strings.HasPrefix(capacity, "capacity: 2 calls") || probe != "Pause probe" {
		t.Errorf("title %q, capacity %q, probe section %q", title, capacity, probe)
	}
	// A scenario run's page, in the same browser: its tables laid out, nothing else.
	sr := scenarioReport()
	sdir := t.TempDir()
	if err := WriteHTML(sdir, sr.Report, []callers.Turn{}, sr.Sections()...); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(sdir, HTMLFileName)),
		chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.querySelectorAll('section.extra').length,
		[...document.querySelectorAll('section.extra table')].filter(t => t.getBoundingClientRect().height > 40).length,
		document.querySelectorAll('#probe tbody tr').length, document.querySelectorAll('figure, #steps').length]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 4 || shown[0] != 8 || shown[1] != 8 || shown[2] != 4 || shown[3] != 0 {
		t.Errorf("scenario page: [sections, tables drawn, probe rows, ramp parts] = %v, want [8 8 4 0]", shown)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range requests {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page fetched %s", u)
		}
	}
	if len(requests) == 0 {
		t.Error("no request seen at all: the network listener is not working")
	}
}
