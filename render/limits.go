package render

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Rendering is bounded: no message, however nested or large, costs more
// than a bounded size and time to render, in any format. A stored line may
// be up to 64 MiB, and a small one can be a bomb (18 KB of arrays nested
// 9,000 deep indent to 162 MB). The bounds, far above any real message:
//
//   - maxShown: a piece shows at most 1 MiB of a message: its texts,
//     outputs, JSON (as displayed, indented or not) and label values,
//     counted before any HTML escaping, so that every format cuts at the
//     same place. What does not fit is cut, and a marker says what and
//     how much, and that the whole message is in messages.jsonl and
//     export.json.
//   - maxParts: a piece shows at most 1,000 parts (content blocks, tool
//     calls, items of a tool result or of a reasoning summary); the rest
//     are left out, with a marker saying how many.
//   - maxIndentDepth: JSON nested more than 16 deep, or whose indented form
//     would not fit, is shown as written, not indented: indenting costs
//     the depth on every line.
//   - maxLabel: a value on a label line (a role, tool name, call id, time,
//     an image's address) is cut at 2,048 characters.
//   - maxDrawn: transcript.html draws at most 8 MiB of a message's
//     images, counted in base64 as stored (each at most maxInlineImage);
//     the others are described.
//   - maxMarkdown: transcript.html renders at most 256 KiB of a message's
//     texts as Markdown, and a text only when goldmark's work on it is
//     bounded (markdown_cost.go); it shows the others as written.
//
// A piece is then at most a few times maxShown (fences, HTML escapes and
// the wrappers of maxParts parts) plus maxDrawn, and the work to make it is
// linear in the message.
const (
	maxShown       = 1 << 20
	maxParts       = 1000
	maxIndentDepth = 16
	maxLabel       = 2048
	maxDrawn       = 8 << 20
	maxMarkdown    = 256 << 10
)

// walk renders one message's content in a style (shapes.go walks it),
// keeping the count of what the piece shows against the bounds above.
type walk struct {
	st     style
	shown  int // bytes shown, against maxShown
	parts  int // parts shown, against maxParts
	drawn  int // base64 of the images that may be drawn, against maxDrawn
	marked int // bytes of text rendered as Markdown, against maxMarkdown
}

// room is how many more bytes the piece may show.
func (w *walk) room() int { return max(0, maxShown-w.shown) }

// take returns what of s fits in the piece, cut at a character boundary,
// and the number of bytes left out; it counts what it returns as shown.
func (w *walk) take(s string) (string, int) {
	n := cutPoint(s, w.room())
	w.shown += n
	return s[:n], len(s) - n
}

// cutPoint is the largest n ≤ limit at which s may be cut without
// splitting a UTF-8 character.
func cutPoint(s string, limit int) int {
	if len(s) <= limit {
		return len(s)
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// text is prose the author wrote, cut to what fits, its Markdown rendered
// while the piece has rendered less than maxMarkdown.
func (w *walk) text(s string) string {
	s, more := w.take(s)
	if w.marked+len(s) > maxMarkdown {
		return w.withCut(w.st.plain(s), more)
	}
	w.marked += len(s)
	return w.withCut(w.st.text(s), more)
}

// code is verbatim output, cut to what fits.
func (w *walk) code(s string) string {
	s, more := w.take(s)
	return w.withCut(w.st.code(s), more)
}

// json is a JSON value, indented when that is cheap (jsonDisplay), and
// cut to what fits.
func (w *walk) json(v []byte) string {
	s, more := w.take(jsonDisplay(v, w.room()))
	return w.withCut(w.st.json(s), more)
}

// label is a value shown on a label line: cut at maxLabel characters.
func (w *walk) label(s string) string {
	s = clip(s, maxLabel)
	w.shown += len(s)
	return s
}

// media is an image, document or file. What describes it counts as
// shown; an image is drawn only while the piece has room for it (maxDrawn).
func (w *walk) media(r mediaRef) string {
	r.url, r.fileID, r.name, r.mediaType = w.label(r.url), w.label(r.fileID), w.label(r.name), w.label(r.mediaType)
	// Any image small enough to be drawn counts, drawn or not: it costs
	// less than to tell which are (dataURL) in every format.
	if r.word == "image" && r.inline && len(r.data) <= maxInlineImage {
		if w.drawn+len(r.data) > maxDrawn {
			r.noDraw = true
		} else {
			w.drawn += len(r.data)
		}
	}
	return w.st.media(r)
}

// withCut follows a part cut short with the marker that says so.
func (w *walk) withCut(part string, more int) string {
	if more == 0 {
		return part
	}
	return w.st.join([]string{part, w.st.cut(cutNote(sizeText(more) + " more"))})
}

// fitsTodos reports whether a to-do list fits in the piece, and counts it as
// shown if it does; one that does not is shown as JSON, which is cut.
func (w *walk) fitsTodos(list []todo) bool {
	n := 0
	for _, t := range list {
		n += len(t.text)
	}
	if w.parts+len(list) > maxParts || n > w.room() {
		return false
	}
	w.parts += len(list)
	w.shown += n
	return true
}

// each renders items in order while the piece has room for them, and
// one marker for those left out.
func (w *walk) each(items []json.RawMessage, f func(json.RawMessage) string) []string {
	out := make([]string, 0, len(items))
	for i, v := range items {
		if w.full() {
			return append(out, w.cutRest(items[i:]))
		}
		w.parts++
		out = append(out, f(v))
	}
	return out
}

// full reports whether the piece has room for no more parts.
func (w *walk) full() bool {
	return w.parts >= maxParts || w.shown >= maxShown
}

// cutRest is the marker for the items a full piece leaves out.
func (w *walk) cutRest(items []json.RawMessage) string {
	n := 0
	for _, rest := range items {
		n += len(rest)
	}
	what := strconv.Itoa(len(items)) + " more parts"
	if len(items) == 1 {
		what = "1 more part"
	}
	return w.st.cut(cutNote(what + ", " + sizeText(n)))
}

// cutNote is what a marker says: what was cut, and where it is whole.
func cutNote(what string) string {
	return "cut: " + what + "; the whole message is in messages.jsonl and export.json"
}

// clip cuts s at n characters, ending it with "…" when it cuts.
func clip(s string, n int) string {
	if len(s) <= n { // at most n bytes: at most n characters
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			return s[:i] + "…"
		}
		count++
	}
	return s
}
