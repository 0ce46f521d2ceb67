package render

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Markdown returns the transcript.md piece for one message: a "## Turn N"
// heading when m starts turn N, a label line naming the role and time, then
// the content. Injected context is one short line instead, and a
// compaction a marker with its summary collapsed. The piece always ends
// with exactly one blank line, so pieces concatenate into a well-formed
// document (see the package doc); an event's piece is empty (its turn
// heading aside, which events never start), or its Note.
func Markdown(m Message) []byte {
	parts := make([]string, 0, 6) // joined once, by finish
	o, ok := parseObject(m.Raw)
	event := ok && isEvent(o)
	if m.Note != "" && !event {
		parts = append(parts, markdownNote(m.Note), "\n\n")
	}
	if m.Turn > 0 {
		parts = append(parts, string(heading(m.Turn)))
	}
	if ok {
		if event {
			if m.Note == "" {
				return []byte(strings.Join(parts, ""))
			}
			return finish(append(parts, markdownNote(m.Note))...)
		}
		switch k := contextKind(o); {
		case k == "compaction":
			parts = append(parts, markdownCompaction(o))
		case k != "":
			parts = append(parts, markdownContext(k, contentSize(o.get("content"))))
		default:
			if !o.isTrue("continues") {
				parts = append(parts, label(o), "\n\n")
			}
			parts = append(parts, body(o, markdownStyle{}))
		}
	} else {
		// The store validates what it writes, but a damaged or foreign line
		// must still show up readably rather than vanish or break the file.
		parts = append(parts, "**unreadable message**\n\n", (&walk{st: markdownStyle{}}).code(string(m.Raw)))
	}
	return finish(parts...)
}

// isEvent reports a stored source line that is not a message (a summary,
// a UI event: role "event", see the importer). Renderings leave it out;
// messages.jsonl still holds it. Its piece is empty.
func isEvent(o object) bool {
	role, _ := o.str("role")
	return role == "event"
}

// heading is the line that opens turn n, followed by a blank line.
func heading(turn int) []byte {
	return []byte("## Turn " + strconv.Itoa(turn) + "\n\n")
}

// finish joins the parts of a piece, in one copy, ending it with exactly
// one blank line, and makes it valid UTF-8: JSON shown verbatim may carry
// invalid bytes, which readers of a .md file should never meet.
func finish(parts ...string) []byte {
	for len(parts) > 0 { // trailing white space goes, whole parts of it too
		last := strings.TrimRight(parts[len(parts)-1], " \t\r\n")
		if last != "" {
			parts[len(parts)-1] = last
			break
		}
		parts = parts[:len(parts)-1]
	}
	n := len("\n\n")
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	out = append(out, "\n\n"...)
	if utf8.Valid(out) { // the rule: no second copy to make
		return out
	}
	return bytes.ToValidUTF8(out, []byte("\uFFFD"))
}

// markdownNote is a note the caller adds (Message.Note) in one line:
// "_[turn interrupted: Esc]_".
func markdownNote(note string) string {
	return "_[" + escapeInline(shorten(note)) + "]_"
}

// markdownContext is injected context in one line, what it is and how
// big: "_[context: environment, 1.2 KB]_". messages.jsonl has it whole.
func markdownContext(kind string, size int) string {
	return "_[context: " + escapeInline(shorten(kind)) + ", " + sizeText(size) + "]_"
}

// markdownCompaction marks where the conversation was compacted, under a
// rule so that it shows, with the summary the agent went on from
// collapsed below.
func markdownCompaction(o object) string {
	l := "**compaction**" + tsSuffix(o)
	summary := "summary, " + sizeText(contentSize(o.get("content")))
	return "---\n\n" + l + "\n\n" + details(summary, body(o, markdownStyle{}))
}

// label is the line that says who wrote the message and when, e.g.
// "**user** · 2026-11-22 11:25:03 UTC".
func label(o object) string {
	return "**" + escapeInline(roleName(o)) + "**" + tsSuffix(o)
}

// tsSuffix is " · " and the message's time for a label line, or "" when it
// has none.
func tsSuffix(o object) string {
	if ts, ok := o.str("ts"); ok && ts != "" {
		return " · " + escapeInline(formatTS(ts))
	}
	return ""
}

// roleName names the role for a reader. A system message is instructions
// rather than conversation, so it says so (developer messages are
// injected context, see contextKind); a user message that only carries
// tool results (how Claude Code stores them) is named for what it holds.
// Any other role is named as stored, cut at maxLabel; the name is plain
// text, which each format escapes.
func roleName(o object) string {
	role, _ := o.str("role")
	switch role {
	case "system":
		return "system prompt"
	case "tool":
		return "tool result"
	case "user":
		if onlyResults(o.get("content")) {
			return "tool result"
		}
		return "user"
	case "":
		return "message"
	}
	return clip(role, maxLabel)
}
