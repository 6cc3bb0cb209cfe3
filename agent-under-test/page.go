package agent

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
)

// The page GET / serves: a SmallWebRTC client with no external resources. Its script lives in
// static/page.js and is inlined at the /*SCRIPT*/ mark, so one response is the whole page and
// the Content-Security-Policy can allow exactly that script by its hash.
//
//go:embed static/index.html static/page.js
var static embed.FS

type page struct {
	html []byte
	csp  string
}

var buildPage = sync.OnceValue(func() page {
	html, err1 := static.ReadFile("static/index.html")
	js, err2 := static.ReadFile("static/page.js")
	if err1 != nil || err2 != nil || !strings.Contains(string(html), "/*SCRIPT*/") {
		// Unreachable: both files are embedded at build time and tested.
		return page{html: []byte("callfleet agent: page assets missing\n"), csp: "default-src 'none'"}
	}
	sum := sha256.Sum256(js)
	return page{
		html: []byte(strings.Replace(string(html), "/*SCRIPT*/", string(js), 1)),
		csp: "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
			"style-src 'unsafe-inline'; connect-src 'self'; media-src 'self' blob: mediastream:",
	}
})

// handlePage serves the browser client.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	p := buildPage()
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", p.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	w.Write(p.html)
}
