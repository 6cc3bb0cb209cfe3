package tui

import (
	"io"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/callfleet/callfleet/callers"
)

// common is what every screen shares: the terminal's size, the styles, the keys and the clock
// (soft-serve's pkg/ui/common pattern). Screens hold a pointer, so a resize reaches all of them.
type common struct {
	Width, Height int
	Styles        styles
	Keys          keyMap
	Now           func() time.Time
}

func newCommon(out io.Writer, now func() time.Time) *common {
	return &common{Styles: newStyles(lipgloss.NewRenderer(out)), Keys: newKeyMap(), Now: now}
}

// styles are built on the program's own renderer, so colours follow its output (none when it is
// not a terminal, which keeps golden frames plain).
type styles struct {
	Title, Label, Value, Dim, OK, Fail, Warn, Border, BoxTitle, Key lipgloss.Style
	State                                                           map[callers.State]lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) styles {
	c := func(s string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(s)) }
	return styles{
		Title:    r.NewStyle().Bold(true).Foreground(lipgloss.Color("212")),
		Label:    c("245"),
		Value:    r.NewStyle().Bold(true),
		Dim:      c("240"),
		OK:       c("42"),
		Fail:     c("203"),
		Warn:     c("214"),
		Border:   c("238"),
		BoxTitle: r.NewStyle().Bold(true).Foreground(lipgloss.Color("111")),
		Key:      r.NewStyle().Bold(true).Foreground(lipgloss.Color("111")),
		State: map[callers.State]lipgloss.Style{
			callers.StateUnknown:   c("240"),
			callers.StateDialing:   c("214"),
			callers.StateSpeaking:  c("81"),
			callers.StateWaiting:   c("221"),
			callers.StateListening: c("42"),
			callers.StatePausing:   c("245"),
			callers.StateDone:      c("240"),
			callers.StateFailed:    c("203"),
		},
	}
}

// keyMap is every key the live view answers; it doubles as the help screen's content.
type keyMap struct {
	Stop, EndStep, Up, Down, PageUp, PageDown, Top, Bottom, Help, Interrupt key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return keyMap{
		Stop:      b([]string{"q"}, "q", "stop: hang up and write the report (twice: leave now)"),
		EndStep:   b([]string{"s"}, "s", "end the current step now"),
		Up:        b([]string{"up", "k"}, "↑/k", "scroll calls up"),
		Down:      b([]string{"down", "j"}, "↓/j", "scroll calls down"),
		PageUp:    b([]string{"pgup", "b"}, "pgup/b", "page up"),
		PageDown:  b([]string{"pgdown", "f", " "}, "pgdn/f", "page down"),
		Top:       b([]string{"home", "g"}, "home/g", "first call"),
		Bottom:    b([]string{"end", "G"}, "end/G", "last call"),
		Help:      b([]string{"?"}, "?", "this help"),
		Interrupt: b([]string{"ctrl+c"}, "ctrl+c", "interrupt (exit 130)"),
	}
}

// ShortHelp is the footer.
func (k keyMap) ShortHelp() []key.Binding {
	short := func(b key.Binding, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, desc))
	}
	out := []key.Binding{short(k.Stop, "stop")}
	if k.EndStep.Enabled() {
		out = append(out, short(k.EndStep, "end step"))
	}
	return append(out, key.NewBinding(key.WithKeys("j"), key.WithHelp("↑↓/jk", "scroll")), short(k.Help, "help"))
}

// FullHelp is the help screen, in two columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Stop, k.EndStep, k.Help, k.Interrupt}, {k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}
