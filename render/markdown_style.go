package render

import "strings"

// markdownStyle is how transcript.md shows each part of a message (see
// shapes.go for which parts there are).
type markdownStyle struct{}

var _ style = markdownStyle{}

func (markdownStyle) text(s string) string    { return markdownText(s) }
func (markdownStyle) code(s string) string    { return fence("", s) }
func (markdownStyle) json(v []byte) string    { return jsonFence(v) }
func (markdownStyle) note(s string) string    { return "_(" + s + ")_" }
func (markdownStyle) refusal(s string) string { return "**refusal**\n\n" + markdownText(s) }

func (markdownStyle) media(typ string, b object) (string, bool) { return media(typ, b) }
func (markdownStyle) join(parts []string) string                { return join(parts) }

func (m markdownStyle) thinking(parts []string, encrypted bool) string {
	md := join(parts)
	if md == m.note("empty") && encrypted {
		md = m.note("encrypted")
	}
	return details("thinking", md)
}

// toolCall is a label with the tool's name and call id, then the input.
func (markdownStyle) toolCall(name, id, input string) string {
	l := "**tool call**"
	if name != "" {
		l += " " + inlineCode(name)
	}
	if id != "" {
		l += " · " + inlineCode(id)
	}
	if input == "" {
		return l
	}
	return l + "\n\n" + input
}

// toolResult is a label with the call id, then the output, fenced.
func (markdownStyle) toolResult(id string, isError bool, parts []string) string {
	l := "**result**"
	if isError {
		l = "**result (error)**"
	}
	if id != "" {
		l += " · " + inlineCode(id)
	}
	return strings.Join(append([]string{l}, parts...), "\n\n")
}

// join separates non-empty parts with a blank line, and says so when a
// message has nothing to show, so its label is not left dangling.
func join(parts []string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return "_(empty)_"
	}
	return strings.Join(kept, "\n\n")
}

// details wraps Markdown in a collapsed <details> element, so long thinking
// does not bury the conversation in viewers that render HTML. The blank
// lines let the Markdown inside render as Markdown.
func details(summary, md string) string {
	if md == "" {
		md = "_(empty)_"
	}
	return "<details><summary>" + summary + "</summary>\n\n" + md + "\n\n</details>"
}
