package callers

import "github.com/callfleet/callfleet/internal/safetext"

// maxTranscripts bounds the server finals a turn keeps (on time, and late): an agent sending
// them without end must not grow the record; more than one already fails the turn (split).
const maxTranscripts = 32

// keepText appends an agent's text to list, cleaned for the record, unless list is full.
func keepText(list []string, text string) ([]string, bool) {
	if len(list) >= maxTranscripts {
		return list, false
	}
	return append(list, safetext.Clean(text, safetext.MaxText)), true
}

// errorText is err's message as a record keeps it: errors quote what agents sent (close reasons,
// error bodies), so the text is cleaned and capped once more here, whatever the transport did.
func errorText(err error) string { return safetext.Clean(err.Error(), safetext.MaxError) }
