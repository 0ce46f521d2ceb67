package backing

import (
	"encoding/json"
	"strings"
	"unicode"
)

// TitleMax is the length in runes of a title made from a prompt: it has to
// read well in a listing, one line wide.
const TitleMax = 80

// TitleOf turns a prompt's text into a title: whitespace (newlines too)
// collapses to single spaces, and a text over max runes is cut at the last
// word boundary that leaves room for "…", so the result is at most max
// runes. A first word longer than that is cut inside the word: a title
// must not come out empty.
func TitleOf(s string, max int) string {
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

// PromptText is the text a title is made of: a message's first text.
func PromptText(line []byte) string {
	h, err := parseHeader(line)
	if err != nil {
		return ""
	}
	return FirstText(h.Content)
}

// FirstText is the first non-blank text of a message's content, trimmed:
// the string itself, or the first text block ("text" in Claude Code,
// "input_text" and "output_text" in Codex) of an array. Tool results and
// images have none. Titles and the importers' reading of prompts use it.
func FirstText(content json.RawMessage) string {
	if FirstByte(content) == '"' {
		return strings.TrimSpace(stringOf(content))
	}
	text := ""
	eachElement(content, func(block []byte) {
		if text != "" {
			return
		}
		var typ, t []byte
		EachMember(block, func(key string, v []byte) {
			switch key {
			case "type":
				typ = v
			case "text":
				t = v
			}
		})
		switch string(typ) {
		case `"text"`, `"input_text"`, `"output_text"`:
			text = strings.TrimSpace(stringOf(t))
		}
	})
	return text
}
