package rtvi

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The agent's own words: what it says it speaks, as RTVI reports it. pipecat's RTVIObserver
// (src/pipecat/processors/frameworks/rtvi/observer.py, protocol 2.1 and later) sends, for text
// its TTS speaks:
//
//   - bot-output {text, spoken, aggregated_by, will_be_spoken?, segment_id?, spoken_status?,
//     spoken_progress?}: RTVI 2.1 added it as the whole picture of the bot's output. spoken is
//     true for text the TTS has spoken (a TTSTextFrame; one per sentence, or per word with word
//     timestamps for 1.x clients); false for text it will not speak. Later 2.x versions also
//     announce a segment before it is spoken (spoken_status "new", will_be_spoken true) and then
//     send progress events for it ("in-progress", "completed", carrying spoken_progress);
//     will_be_spoken false marks text that is shown but never said.
//   - bot-tts-text {text}: the same spoken text, one message per TTSTextFrame.
//   - bot-transcription {text}: deprecated; the LLM's text cut at sentence ends.
//   - bot-llm-text {text}: the LLM's output as it streams, token by token.

// OutputData is the data of bot-output (RTVI 2.1+; later fields optional).
type OutputData struct {
	Text         string `json:"text"`
	Spoken       bool   `json:"spoken"`
	AggregatedBy string `json:"aggregated_by,omitempty"`
	WillBeSpoken *bool  `json:"will_be_spoken,omitempty"`
	SegmentID    string `json:"segment_id,omitempty"`
	SpokenStatus string `json:"spoken_status,omitempty"` // new, in-progress, completed
	// SpokenProgress (accumulated_text, remaining_text) is not read: a progress event repeats a
	// segment already announced.
}

// Values of bot-output's aggregated_by and spoken_status that callfleet uses.
const (
	AggregatedBySentence = "sentence"
	SpokenStatusNew      = "new"
)

// BotOutput returns a bot-output event for text the bot has spoken, one sentence, as pipecat
// sends it for a TTSTextFrame to 2.x clients (spoken true, aggregated by sentence).
func BotOutput(text string) Message {
	return withData(TypeBotOutput, "", OutputData{Text: text, Spoken: true, AggregatedBy: AggregatedBySentence})
}

// Output returns the data of a bot-output event, its texts cleaned and capped.
func (m Message) Output() (OutputData, error) {
	if m.Type != TypeBotOutput {
		return OutputData{}, fmt.Errorf("rtvi bot-output: %w: %s", ErrWrongType, m.Type)
	}
	var o OutputData
	if err := m.DecodeData(&o); err != nil {
		return OutputData{}, err
	}
	o.Text, o.AggregatedBy = cleanText(o.Text), cleanText(o.AggregatedBy)
	o.SegmentID, o.SpokenStatus = cleanText(o.SegmentID), cleanText(o.SpokenStatus)
	return o, requireText(m.Type, m.Data)
}

// BotText is one piece of the text the agent says it speaks.
type BotText struct {
	Kind string // the message type: bot-output, bot-tts-text, bot-transcription or bot-llm-text
	Text string // cleaned and capped; a streamed piece keeps one space at either end it had
	// Stream marks a piece of streamed text (bot-llm-text tokens), to be joined to the pieces
	// before it as it is, rather than kept as a segment of its own.
	Stream bool
}

// Rank orders the kinds as witnesses of what the agent said, best first (higher): text its TTS
// spoke (bot-output, then bot-tts-text, which pipecat sends for the same text), then the LLM's
// sentences (bot-transcription), then its raw tokens (bot-llm-text). 0 for any other type.
func (b BotText) Rank() int { return BotTextRank(b.Kind) }

// BotTextRank is Rank for a message type.
func BotTextRank(kind string) int {
	switch kind {
	case TypeBotOutput:
		return 4
	case TypeBotTTSText:
		return 3
	case TypeBotTranscription:
		return 2
	case TypeBotLLMText:
		return 1
	}
	return 0
}

// BotText returns the piece of the agent's own reply text m carries, if it carries one. A
// bot-output counts when its text was spoken (spoken true) or is announced to be (spoken_status
// "new"); its progress events (other statuses), and text that will not be spoken (spoken false
// with no status, or will_be_spoken false), do not: the first would repeat a segment, the
// second is not what a caller hears. Empty texts do not count.
func (m Message) BotText() (BotText, bool) {
	var text string
	switch m.Type {
	case TypeBotOutput:
		o, err := m.Output()
		if err != nil || !o.counts() {
			return BotText{}, false
		}
		text = o.Text
	case TypeBotTTSText, TypeBotTranscription:
		t, _, err := m.Transcription()
		if err != nil {
			return BotText{}, false
		}
		text = t
	case TypeBotLLMText:
		var t textData
		if m.DecodeData(&t) != nil || requireText(m.Type, m.Data) != nil {
			return BotText{}, false
		}
		piece := streamPiece(t.Text)
		return BotText{Kind: m.Type, Text: piece, Stream: true}, strings.TrimSpace(piece) != ""
	default:
		return BotText{}, false
	}
	return BotText{Kind: m.Type, Text: text}, text != ""
}

// counts reports whether a bot-output is text the bot speaks, once.
func (o OutputData) counts() bool {
	if o.WillBeSpoken != nil && !*o.WillBeSpoken {
		return false
	}
	return o.Spoken || o.SpokenStatus == SpokenStatusNew
}

// streamPiece cleans a streamed token but keeps the word break at either end: tokens carry
// their spaces (" one", " two"), which Clean would trim.
func streamPiece(s string) string {
	text := cleanText(s)
	if text == "" {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		text = " " + text
	}
	if r, _ := utf8.DecodeLastRuneInString(s); unicode.IsSpace(r) {
		text += " "
	}
	return text
}
