package render

import (
	"bytes"
	"strconv"
)

// Markdown returns the transcript.md piece for one message: a "## Turn N"
// heading when m starts turn N, a label line naming the role and time, then
// the content. Injected context is one short line instead, and a
// compaction a marker with its summary collapsed. The piece always ends
// with exactly one blank line, so pieces concatenate into a well-formed
// document (see the package doc); an event's piece is empty (its turn
// heading aside, which events never start), or its Note. It is
// AppendMarkdown's piece in a slice of its own, of its exact size.
func Markdown(m Message) []byte {
	return exactly(AppendMarkdown, m)
}

// AppendMarkdown appends Markdown(m) to dst and returns the extended
// slice, as the append built-in does: a caller that renders many messages
// into one buffer costs no allocation of its own for each.
func AppendMarkdown(dst []byte, m Message) []byte {
	start := len(dst)
	var buf objectBuf // the message's members stay on the stack
	o, ok := parseObjectIn(buf[:0], m.Raw)
	f := readFields(o)
	event := ok && isEvent(&f)
	if m.Note != "" && !event {
		dst = appendMarkdownNote(dst, m.Note)
		dst = append(dst, "\n\n"...)
	}
	if m.Turn > 0 {
		dst = appendHeading(dst, m.Turn)
	}
	if ok {
		if event {
			if m.Note == "" {
				return dst
			}
			return finishPiece(appendMarkdownNote(dst, m.Note), start)
		}
		switch k := contextKind(&f); {
		case k == "compaction":
			dst = append(dst, markdownCompaction(&f)...)
		case k != "":
			dst = append(dst, markdownContext(k, contentSize(f.content.val))...)
		default:
			if !f.continues.isTrue() {
				dst = append(appendLabel(dst, &f), "\n\n"...)
			}
			dst = appendMarkdownBody(dst, &f)
		}
	} else {
		// The store validates what it writes, but a damaged or foreign line
		// must still show up readably rather than vanish or break the file.
		dst = append(dst, "**unreadable message**\n\n"...)
		dst = append(dst, (&walk{st: markdownStyle{}}).code(string(m.Raw))...)
	}
	return finishPiece(dst, start)
}

// appendMarkdownBody appends body(f, markdownStyle{}). A message whose
// content is one string without escapes and nothing else to show, the
// most common of all, has its text copied from the message into dst
// once, with no string made of it; one whose content is an array of
// blocks has them appended one by one (appendMarkdownBlocks).
// FuzzMarkdownBody holds both to body.
func appendMarkdownBody(dst []byte, f *fields) []byte {
	// body shows a tool message's content as output, and tool calls
	// after it.
	if f.role == "tool" || kind(f.toolCalls.val) == '[' {
		return append(dst, body(f, markdownStyle{})...)
	}
	var buf arrayBuf // the blocks stay on the stack
	if blocks, ok := asArrayIn(buf[:0], f.content.val); ok {
		return appendMarkdownBlocks(dst, blocks)
	}
	text, ok := f.content.plainBytes()
	// body cuts a text longer than maxMarkdown or maxShown.
	if !ok || len(text) > min(maxMarkdown, maxShown) {
		return append(dst, body(f, markdownStyle{})...)
	}
	start := len(dst)
	dst = appendMarkdownText(dst, text)
	if len(bytes.TrimSpace(dst[start:])) == 0 { // as join says of a message with nothing to show
		dst = append(dst[:start], "_(empty)_"...)
	}
	return dst
}

// isEvent reports a stored source line that is not a message (a summary,
// a UI event: role "event", see the importer). Renderings leave it out;
// messages.jsonl still holds it. Its piece is empty.
func isEvent(f *fields) bool {
	return f.role == "event"
}

// heading is the line that opens turn n, followed by a blank line.
func heading(turn int) []byte {
	return appendHeading(nil, turn)
}

func appendHeading(dst []byte, turn int) []byte {
	dst = append(dst, "## Turn "...)
	return append(strconv.AppendInt(dst, int64(turn), 10), "\n\n"...)
}

// finish joins the parts of a piece, in one copy, as finishPiece ends it.
func finish(parts ...string) []byte {
	n := len("\n\n")
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return finishPiece(out, 0)
}

// finishPiece ends the piece dst[start:] with exactly one blank line, its
// trailing white space gone, and makes it valid UTF-8: JSON shown verbatim
// may carry invalid bytes, which readers of a .md file should never meet.
func finishPiece(dst []byte, start int) []byte {
	end := len(dst)
	for end > start && (dst[end-1] == ' ' || dst[end-1] == '\t' || dst[end-1] == '\r' || dst[end-1] == '\n') {
		end--
	}
	dst = append(dst[:end], "\n\n"...)
	if validUTF8(dst[start:]) { // the rule: no second copy to make
		return dst
	}
	valid := bytes.ToValidUTF8(dst[start:], []byte("\uFFFD"))
	return append(dst[:start], valid...)
}

// appendMarkdownNote appends a note the caller adds (Message.Note) in one line:
// "_[turn interrupted: Esc]_".
func appendMarkdownNote(dst []byte, note string) []byte {
	dst = append(dst, "_["...)
	dst = append(dst, escapeInline(shorten(note))...)
	return append(dst, "]_"...)
}

// markdownContext is injected context in one line, what it is and how
// big: "_[context: environment, 1.2 KB]_". messages.jsonl has it whole.
func markdownContext(kind string, size int) string {
	return "_[context: " + escapeInline(shorten(kind)) + ", " + sizeText(size) + "]_"
}

// markdownCompaction marks where the conversation was compacted, under a
// rule so that it shows, with the summary the agent went on from
// collapsed below.
func markdownCompaction(f *fields) string {
	l := string(appendTSSuffix([]byte("**compaction**"), f))
	summary := "summary, " + sizeText(contentSize(f.content.val))
	return "---\n\n" + l + "\n\n" + details(summary, body(f, markdownStyle{}))
}

// appendLabel appends the line that says who wrote the message and
// when, e.g. "**user** · 2026-11-22 11:25:03 UTC".
func appendLabel(dst []byte, f *fields) []byte {
	dst = append(dst, "**"...)
	dst = append(dst, escapeInline(roleName(f))...)
	return appendTSSuffix(append(dst, "**"...), f)
}

// appendTSSuffix appends " · " and the message's time for a label line,
// or nothing when it has none.
func appendTSSuffix(dst []byte, f *fields) []byte {
	return appendTS(dst, f, " · ", "", escapeInline)
}

// roleName names the role for a reader. A system message is instructions
// rather than conversation, so it says so (developer messages are
// injected context, see contextKind); a user message that only carries
// tool results (how Claude Code stores them) is named for what it holds.
// Any other role is named as stored, cut at maxLabel; the name is plain
// text, which each format escapes.
func roleName(f *fields) string {
	switch role := f.role; role {
	case "system":
		return "system prompt"
	case "tool":
		return "tool result"
	case "user":
		if onlyResults(f.content.val) {
			return "tool result"
		}
		return "user"
	case "":
		return "message"
	}
	return clip(f.role, maxLabel)
}
