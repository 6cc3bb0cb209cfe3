package twilio

// The fast path decodes the common media message, printable-ASCII strings without escapes,
// in one allocation. Anything outside that subset returns ok=false and goes through
// encoding/json, which stays the reference: FuzzFastPath checks that both agree.

// decodeFastMedia parses a media message or reports ok=false.
func decodeFastMedia(data []byte) (m Message, ok bool) {
	p := fastParser{b: data}
	var (
		event, seq, sid, track, chunk, ts, payload span
		seen                                       uint8 // bit per key, to fall back on duplicates
	)
	if !p.objectStart() {
		return m, false
	}
	for first := true; ; first = false {
		key, more := p.nextKey(first)
		if !more {
			break
		}
		if !key.ok() {
			return m, false
		}
		var bit uint8
		switch string(data[key.lo:key.hi]) {
		case "event":
			bit, event = 1, p.str()
		case "sequenceNumber":
			bit, seq = 2, p.str()
		case "streamSid":
			bit, sid = 4, p.str()
		case "media":
			bit = 8
			if !p.objectStart() {
				return m, false
			}
			var mseen uint8
			for mfirst := true; ; mfirst = false {
				mkey, mmore := p.nextKey(mfirst)
				if !mmore {
					break
				}
				if !mkey.ok() {
					return m, false
				}
				var mbit uint8
				switch string(data[mkey.lo:mkey.hi]) {
				case "track":
					mbit, track = 1, p.str()
				case "chunk":
					mbit, chunk = 2, p.str()
				case "timestamp":
					mbit, ts = 4, p.str()
				case "payload":
					mbit, payload = 8, p.str()
				default:
					return m, false
				}
				if mseen&mbit != 0 || p.bad {
					return m, false
				}
				mseen |= mbit
			}
		default:
			return m, false
		}
		if seen&bit != 0 || p.bad {
			return m, false
		}
		seen |= bit
	}
	p.ws()
	if p.bad || p.i != len(data) || !event.ok() || string(data[event.lo:event.hi]) != "media" ||
		payload.hi == payload.lo || checkBase64(data[payload.lo:payload.hi]) != nil {
		return m, false // including every error case, so the slow path words the error
	}
	var nums [3]int64
	for i, s := range [3]span{seq, chunk, ts} {
		if !s.ok() {
			continue
		}
		n, err := parseFlexInt(data[s.lo:s.hi])
		if err != nil {
			return m, false
		}
		nums[i] = n
	}
	all := string(data) // one allocation backs every string field
	m = Message{
		Event:     EventMedia,
		StreamSID: sid.in(all),
		Seq:       nums[0],
		Media:     Media{Track: track.in(all), Chunk: nums[1], Timestamp: nums[2], Payload: payload.in(all)},
	}
	return m, true
}

// span is a string value's bytes [lo, hi) inside the input; the zero span means absent, since a
// real value starts after its opening quote.
type span struct{ lo, hi int }

func (s span) ok() bool { return s.hi >= s.lo && s.lo > 0 }

func (s span) in(all string) string {
	if !s.ok() {
		return ""
	}
	return all[s.lo:s.hi]
}

type fastParser struct {
	b   []byte
	i   int
	bad bool
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// objectStart consumes "{".
func (p *fastParser) objectStart() bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '{' {
		p.i++
		return true
	}
	return false
}

// nextKey consumes an optional "," then `"key":`, or the closing "}" (more=false).
func (p *fastParser) nextKey(first bool) (key span, more bool) {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return span{}, false
	}
	if !first {
		if p.i >= len(p.b) || p.b[p.i] != ',' {
			p.bad = true
			return span{}, true
		}
		p.i++
	}
	key = p.str()
	p.ws()
	if p.bad || p.i >= len(p.b) || p.b[p.i] != ':' {
		p.bad = true
		return span{}, true
	}
	p.i++
	return key, true
}

// str consumes a string of printable ASCII without escapes; anything else marks the parse bad.
func (p *fastParser) str() span {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		p.bad = true
		return span{}
	}
	lo := p.i + 1
	for j := lo; j < len(p.b); j++ {
		c := p.b[j]
		if c == '"' {
			p.i = j + 1
			return span{lo, j}
		}
		if c < 0x20 || c == '\\' || c >= 0x7f {
			break
		}
	}
	p.bad = true
	return span{}
}
