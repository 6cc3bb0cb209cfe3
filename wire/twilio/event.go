package twilio

// Event is the "event" field of a Media Streams message.
type Event uint8

// The Media Streams events. Connected, Start, Media, Mark, DTMF and Stop are sent by Twilio; Media,
// Mark and Clear are sent by the application.
const (
	EventUnknown Event = iota
	EventConnected
	EventStart
	EventMedia
	EventMark
	EventDTMF
	EventStop
	EventClear
)

var eventNames = [...]string{
	EventUnknown:   "unknown",
	EventConnected: "connected",
	EventStart:     "start",
	EventMedia:     "media",
	EventMark:      "mark",
	EventDTMF:      "dtmf",
	EventStop:      "stop",
	EventClear:     "clear",
}

// String returns the event's wire name, or "unknown".
func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return eventNames[EventUnknown]
}

// ParseEvent returns the Event whose wire name is s (case-sensitive, as Twilio sends it), or
// EventUnknown.
func ParseEvent(s string) Event {
	return parseEventBytes([]byte(s))
}

// parseEventBytes compares without converting to string so decoding does not allocate.
func parseEventBytes(b []byte) Event {
	for e := EventConnected; int(e) < len(eventNames); e++ {
		if string(b) == eventNames[e] {
			return e
		}
	}
	return EventUnknown
}
