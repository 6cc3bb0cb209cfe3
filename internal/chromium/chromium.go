// Package chromium launches Debian's headless Chromium for the project's browser tests, with the
// flags this machine needs (as root: no sandbox; no background networking, whose connections the
// closed network refuses).
package chromium

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path is Debian's Chromium, which `make deps` installs.
const Path = "/usr/bin/chromium"

// Options are the launch options, with a fresh profile, followed by extra. The test fails, naming
// `make deps`, when Chromium is missing: a browser test never skips.
func Options(t testing.TB, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	t.Helper()
	if _, err := os.Stat(Path); err != nil {
		t.Fatalf("the browser test needs Debian's Chromium at %s (%v): run `make deps`", Path, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	return append(opts, extra...)
}
