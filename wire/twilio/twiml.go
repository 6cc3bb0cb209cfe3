package twilio

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"slices"
)

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>`

// StreamTwiML returns the TwiML that connects a call to a bidirectional Media Stream at wsURL,
// passing params as <Parameter> elements (they arrive in start.customParameters), sorted by name
// so the output is deterministic.
func StreamTwiML(wsURL string, params map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString(xmlHeader)
	b.WriteString(`<Response><Connect><Stream url="`)
	escapeAttr(&b, wsURL)
	if len(params) == 0 {
		b.WriteString(`"/></Connect></Response>`)
		return b.Bytes()
	}
	b.WriteString(`">`)
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		b.WriteString(`<Parameter name="`)
		escapeAttr(&b, k)
		b.WriteString(`" value="`)
		escapeAttr(&b, params[k])
		b.WriteString(`"/>`)
	}
	b.WriteString(`</Stream></Connect></Response>`)
	return b.Bytes()
}

// escapeAttr escapes s for a double-quoted attribute; xml.EscapeText also escapes quotes and
// line breaks, which would otherwise be normalised away by XML readers.
func escapeAttr(b *bytes.Buffer, s string) {
	_ = xml.EscapeText(b, []byte(s)) // writing to a bytes.Buffer cannot fail
}

type twimlResponse struct {
	Connect *twimlVerb `xml:"Connect"`
	Start   *twimlVerb `xml:"Start"`
}

type twimlVerb struct {
	Stream *struct {
		URL    string `xml:"url,attr"`
		Params []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"Parameter"`
	} `xml:"Stream"`
}

// ParseStreamURL reads the Stream URL and its parameters from TwiML, as Twilio does before
// opening the stream: from <Connect><Stream>, or from <Start><Stream> when there is no Connect.
// params is never nil on success.
func ParseStreamURL(twiml []byte) (url string, params map[string]string, err error) {
	if len(twiml) > MaxMessageSize {
		return "", nil, fmt.Errorf("parse twiml: %w: %d bytes > %d", ErrTooLarge, len(twiml), MaxMessageSize)
	}
	var r struct {
		XMLName xml.Name `xml:"Response"`
		twimlResponse
	}
	if err := xml.Unmarshal(twiml, &r); err != nil {
		return "", nil, fmt.Errorf("parse twiml: %w: %v", ErrMalformed, err)
	}
	verb := r.Connect
	if verb == nil || verb.Stream == nil {
		verb = r.Start
	}
	if verb == nil || verb.Stream == nil {
		return "", nil, fmt.Errorf("parse twiml: %w: <Connect><Stream>", ErrMissingField)
	}
	if verb.Stream.URL == "" {
		return "", nil, fmt.Errorf("parse twiml: %w: Stream url", ErrMissingField)
	}
	params = make(map[string]string, len(verb.Stream.Params))
	for _, p := range verb.Stream.Params {
		params[p.Name] = p.Value
	}
	return verb.Stream.URL, params, nil
}
