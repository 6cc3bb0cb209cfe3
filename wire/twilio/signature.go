package twilio

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/url"
	"slices"
	"strings"
)

// SignatureHeader is the HTTP header Twilio puts the request signature in.
const SignatureHeader = "X-Twilio-Signature"

// Signature computes the X-Twilio-Signature of a webhook request: HMAC-SHA1, keyed by the auth
// token, over fullURL (with its query string) followed by each POST parameter name in sorted
// order immediately followed by its value, base64-encoded. A name with several values
// contributes name+value for each distinct value in sorted order, as Twilio's Python library does.
func Signature(authToken, fullURL string, postForm url.Values) string {
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(fullURL))
	names := make([]string, 0, len(postForm))
	for k := range postForm {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		vals := slices.Clone(postForm[k])
		slices.Sort(vals)
		for _, v := range slices.Compact(vals) {
			mac.Write([]byte(k))
			mac.Write([]byte(v))
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// ValidSignature reports whether sig is the signature of the request, comparing in constant
// time. Like Twilio's libraries it accepts the URL both with and without the scheme's default
// port, since proxies add or drop it.
func ValidSignature(authToken, fullURL string, form url.Values, sig string) bool {
	ok := false
	for _, u := range urlVariants(fullURL) {
		want := Signature(authToken, u, form)
		// Evaluate every variant so timing does not reveal which one matched.
		if subtle.ConstantTimeCompare([]byte(want), []byte(sig)) == 1 {
			ok = true
		}
	}
	return ok
}

// urlVariants returns fullURL as given plus the form with the default port added or removed.
func urlVariants(fullURL string) []string {
	out := []string{fullURL}
	u, err := url.Parse(fullURL)
	if err != nil || u.Host == "" {
		return out
	}
	def := map[string]string{"https": "443", "http": "80", "wss": "443", "ws": "80"}[u.Scheme]
	if def == "" {
		return out
	}
	host, port := u.Hostname(), u.Port()
	switch port {
	case "":
		u.Host = net.JoinHostPort(host, def)
	case def:
		u.Host = host
		if len(host) > 0 && host[0] != '[' && strings.Contains(host, ":") {
			u.Host = "[" + host + "]" // IPv6 literal needs its brackets back
		}
	default:
		return out
	}
	return append(out, u.String())
}
