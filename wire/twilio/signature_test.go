package twilio

import (
	"net/url"
	"testing"
)

func TestSignature(t *testing.T) {
	// The worked example of Twilio's "Twilio Security" page and its code samples (TwilioDevEd/api-snippets,
	// security/signature_validation): auth token 12345 and this URL and form.
	form := func(caller string) url.Values {
		return url.Values{
			"CallSid": {"CA1234567890ABCDE"}, "Caller": {caller}, "Digits": {"1234"},
			"From": {caller}, "To": {"+18005551212"},
		}
	}
	const u = "https://mycompany.com/myapp.php?foo=1&bar=2"
	tests := []struct {
		caller, want string
	}{
		{"+14158675309", "RSOYDt4T1cUTdK1PDd93/VVr8B8="},
		{"+14158675310", "GvWf1cFY/Q7PnoempGyD5oXAezc="},
	}
	for _, tt := range tests {
		if got := Signature("12345", u, form(tt.caller)); got != tt.want {
			t.Errorf("Signature(caller %s) = %s, want %s", tt.caller, got, tt.want)
		}
		if !ValidSignature("12345", u, form(tt.caller), tt.want) {
			t.Errorf("ValidSignature rejected caller %s", tt.caller)
		}
	}
	if ValidSignature("12346", u, form("+14158675309"), "RSOYDt4T1cUTdK1PDd93/VVr8B8=") {
		t.Error("ValidSignature accepted the wrong token")
	}
	if ValidSignature("12345", u, form("+14158675309"), "") {
		t.Error("ValidSignature accepted an empty signature")
	}
}

func TestSignaturePorts(t *testing.T) {
	form := url.Values{"A": {"1"}}
	signed := Signature("tok", "https://h.example/x?y=1", form)
	for _, u := range []string{"https://h.example/x?y=1", "https://h.example:443/x?y=1"} {
		if !ValidSignature("tok", u, form, signed) {
			t.Errorf("ValidSignature(%s) rejected a signature over the URL without port", u)
		}
	}
	withPort := Signature("tok", "http://[::1]:80/x", form)
	if !ValidSignature("tok", "http://[::1]/x", form, withPort) {
		t.Error("ValidSignature did not try the URL with the default port")
	}
	if ValidSignature("tok", "https://h.example:8443/x?y=1", form, signed) {
		t.Error("ValidSignature accepted a non-default port")
	}
}

func TestSignatureMultiValue(t *testing.T) {
	// Values of one name are sorted and de-duplicated; names are sorted byte-wise.
	a := Signature("t", "u", url.Values{"b": {"2", "1", "2"}, "B": {"x"}})
	b := Signature("t", "u", url.Values{"B": {"x"}, "b": {"1", "2"}})
	if a != b {
		t.Fatalf("%s != %s", a, b)
	}
	if Signature("t", "u", nil) == Signature("t", "u", url.Values{"k": {""}}) {
		t.Fatal("an empty-valued parameter must still contribute its name")
	}
}
