package render

import "strings"

// markdownStyle is how transcript.md shows each part of a message (see
// shapes.go for which parts there are).
type markdownStyle struct{}

var _ style = markdownStyle{}

func (markdownStyle) text(s string) string       { return markdownText(s) }
func (markdownStyle) plain(s string) string      { return markdownText(s) }
func (markdownStyle) code(s string) string       { return fence("", s) }
func (markdownStyle) json(s string) string       { return fence("json", s) }
func (markdownStyle) note(s string) string       { return "_(" + s + ")_" }
func (markdownStyle) refusal(text string) string { return "**refusal**\n\n" + text }

func (markdownStyle) join(parts []string) string { return join(parts) }

// cut is a marker on a line of its own: "_[cut: 2.0 MB more; the whole
// message is in messages.jsonl and export.json]_".
func (markdownStyle) cut(note string) string { return "_[" + note + "]_" }

func (markdownStyle) thinking(parts []string) string { return details("thinking", join(parts)) }

// toolCall is a label with the tool's name, what it acts on and the call
// id, then the input:
//
//	**tool call** `Bash`: `ls -la` · `toolu_1`
func (markdownStyle) toolCall(name, id, arg, input string) string {
	var b strings.Builder
	// The label's spans are short; the input, often long, is copied once.
	b.Grow(len("**tool call**") + 3*(len(" · ``")+2) + len(name) + len(arg) + len(id) + len("\n\n") + len(input))
	b.WriteString("**tool call**")
	if name != "" {
		b.WriteByte(' ')
		writeInlineCode(&b, name)
	}
	if arg != "" {
		b.WriteString(": ")
		writeInlineCode(&b, arg)
	}
	if id != "" {
		b.WriteString(" · ")
		writeInlineCode(&b, id)
	}
	if input != "" {
		b.WriteString("\n\n")
		b.WriteString(input)
	}
	return b.String()
}

// todoCall is the call's label, then its list as a task list: "- [x]"
// done, "- [ ]" not, the item in progress in bold and marked so.
func (m markdownStyle) todoCall(name, id, explanation string, list []todo) string {
	var b strings.Builder
	for i, t := range list {
		if i > 0 {
			b.WriteByte('\n')
		}
		text := escapeInline(t.text)
		switch t.status {
		case "completed":
			b.WriteString("- [x] " + text)
		case "in_progress":
			b.WriteString("- [ ] **" + text + "** _(in progress)_")
		default:
			b.WriteString("- [ ] " + text)
		}
	}
	if len(list) == 0 {
		b.WriteString(m.note("no items"))
	}
	return m.toolCall(name, id, "", join([]string{explanation, b.String()}))
}

// media is a one-line reference that says where inline bytes are kept,
// "[image: image/png, 12 KB — in messages.jsonl and export.json]".
func (markdownStyle) media(r mediaRef) string {
	d := r.describe(plainOrCode)
	if r.inline {
		d += " — in messages.jsonl and export.json"
	}
	return "[" + d + "]"
}

// toolResult is a label with the call id and how the call failed, if it
// did, then the output, fenced.
func (markdownStyle) toolResult(id, failure string, parts []string) string {
	n := len("**result ()**") + len(failure) + len(" · ``") + 2 + len(id)
	for _, p := range parts {
		n += len("\n\n") + len(p)
	}
	var b strings.Builder
	b.Grow(n)
	if failure != "" {
		b.WriteString("**result (" + failure + ")**")
	} else {
		b.WriteString("**result**")
	}
	if id != "" {
		b.WriteString(" · ")
		writeInlineCode(&b, id)
	}
	for _, p := range parts {
		b.WriteString("\n\n")
		b.WriteString(p)
	}
	return b.String()
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
