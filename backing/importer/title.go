package importer

import (
	"encoding/json"
	"strings"
	"unicode"
)

// titleMax is the length in runes of a title made from a user's text: it
// has to read well in a listing, one line wide.
const titleMax = 80

// cutTitle turns a user's text into a title: whitespace (newlines too)
// collapses to single spaces, and a text over max runes is cut at the last
// word boundary that leaves room for "…", so the result is at most max
// runes. A first word longer than that is cut inside the word: a title
// must not come out empty.
func cutTitle(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	if max < 1 {
		return ""
	}
	keep := r[:max-1] // room for the ellipsis
	cut := len(keep)
	if r[max-1] != ' ' { // the cut falls inside a word: back up to its start
		for cut > 0 && keep[cut-1] != ' ' {
			cut--
		}
		if cut == 0 {
			cut = len(keep)
		}
	}
	// A separator left hanging before the ellipsis reads badly: "foo, …".
	out := strings.TrimRightFunc(string(keep[:cut]), func(c rune) bool {
		return unicode.IsSpace(c) || strings.ContainsRune(",;:-–—", c)
	})
	if out == "" { // nothing but separators before the cut
		out = string(keep)
	}
	return out + "…"
}

// firstText is the first non-blank text of a message content: the string
// itself, or the first text block ("text" in Claude Code, "input_text" and
// "output_text" in Codex) of an array. Tool results and images have none.
func firstText(content json.RawMessage) string {
	switch kind(content) {
	case '"':
		return strings.TrimSpace(str(content))
	case '[':
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(content, &blocks) != nil {
			return ""
		}
		for _, b := range blocks {
			switch b.Type {
			case "text", "input_text", "output_text":
				if t := strings.TrimSpace(b.Text); t != "" {
					return t
				}
			}
		}
	}
	return ""
}
