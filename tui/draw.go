package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// fit pads or cuts a styled line to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}

// box frames lines in a rounded border of w by h cells (h <= 0: as tall as the lines), the title
// set into the top edge. Lines beyond the height are dropped, so a box never overflows its slot.
func box(st styles, title string, w, h int, lines []string) string {
	if w < 4 {
		return ""
	}
	if h <= 0 {
		h = len(lines) + 2
	}
	inner := w - 4
	b := st.Border
	t := ""
	if title != "" {
		t = " " + st.BoxTitle.Render(ansi.Truncate(title, max(0, w-6), "…")) + " "
	}
	top := b.Render("╭─") + t + b.Render(strings.Repeat("─", max(0, w-3-lipgloss.Width(t)))+"╮")
	out := make([]string, 0, h)
	out = append(out, top)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		out = append(out, b.Render("│")+" "+fit(line, inner)+" "+b.Render("│"))
	}
	out = append(out, b.Render("╰"+strings.Repeat("─", w-2)+"╯"))
	return strings.Join(out, "\n")
}

// sideBySide joins two blocks of equal height.
func sideBySide(a, b string) string { return lipgloss.JoinHorizontal(lipgloss.Top, a, b) }

// clip keeps the first h lines of s, each cut to w cells, so the frame never scrolls the terminal.
func clip(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

var sparkBars = []rune(" ▁▂▃▄▅▆▇█")

// chart draws values as bars rows tall, each value cols wide, scaled from zero to top (the top
// row first); NaN is a gap where no turn landed. One row is a sparkline.
func chart(vals []float64, top float64, rows, cols int) []string {
	levels := len(sparkBars) - 1
	out := make([]string, rows)
	for r := range rows {
		floor := (rows - 1 - r) * levels // eighths below this row
		var b strings.Builder
		for _, v := range vals {
			c := ' '
			if !math.IsNaN(v) {
				h := 1 // a value above zero always shows
				if top > 0 {
					h = max(1, int(math.Round(v/top*float64(rows*levels))))
				}
				c = sparkBars[min(max(h-floor, 0), levels)]
			}
			b.WriteString(strings.Repeat(string(c), cols))
		}
		out[r] = b.String()
	}
	return out
}

// clockText writes a duration as mm:ss, or h:mm:ss past the hour.
func clockText(d time.Duration) string {
	s := int(max(0, d).Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
