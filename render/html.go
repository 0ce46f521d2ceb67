package render

import (
	"bytes"
	"encoding/json"
	"html"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// HTML rendering: transcript.html and `sessfs export --format html`.
//
// The file follows the same per-message contract as transcript.md (see the
// package doc), with a fixed head and tail around the pieces:
//
//	file = HTMLHead(title) + HTML(m0) + … + HTML(mn-1) + HTMLTail()
//
// Each piece is balanced on its own (every element it opens, it closes) and
// ends with "\n", so a piece cannot change how the next one renders and the
// filesystem can serve byte ranges by rendering only the pieces a read
// covers.
//
// The page is self-contained and inert: inline CSS only, no script, no
// external resources, and a Content-Security-Policy that forbids loading
// anything. Everything taken from a message is HTML-escaped and shown as
// text; Markdown is not rendered, URLs are not made into links, and images
// are described rather than embedded.
//
// Markup, for styling and for tools that read the file:
//
//	<h2 id="turn-N">Turn N</h2>                 a turn start
//	<article class="msg ROLE">                   one message; ROLE is user,
//	                                             assistant, system, developer,
//	                                             tool, other or unreadable
//	  <header><span class="role">…</span> · <span class="ts">…</span></header>
//	  <div class="text">…</div>                  text (white-space: pre-wrap)
//	  <div class="refusal">…</div>               a model's refusal
//	  <details class="thinking">…</details>      thinking / reasoning
//	  <details class="tool-call">…</details>     a tool call, input in <pre>
//	  <details class="tool-result [error]">…</details>
//	  <p class="media">[image: …]</p>            an image, document or file
//	  <pre class="json">…</pre>                  a shape render does not know
//	  <p class="note">(empty)</p>                a remark of render's own
//	</article>
//
// System and developer messages also carry the class "instructions", a
// badge in the header, and their content collapsed in
// <details class="instructions">.

// HTMLHead is the start of transcript.html: doctype, <head> with the title
// and an inline <style>, and the opening of <body>/<main>. title is plain
// text; it is escaped here.
func HTMLHead(title string) []byte {
	t := htmlEscape(oneLine(title))
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n")
	b.WriteString("<meta charset=\"utf-8\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"" + htmlCSP + "\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta name=\"color-scheme\" content=\"light dark\">\n")
	b.WriteString("<title>" + t + "</title>\n")
	b.WriteString("<style>\n" + htmlCSS + "</style>\n")
	b.WriteString("</head>\n<body>\n<main>\n")
	b.WriteString("<h1>" + t + "</h1>\n")
	return []byte(b.String())
}

// HTMLTail closes what HTMLHead opened.
func HTMLTail() []byte {
	return []byte("</main>\n</body>\n</html>\n")
}

// htmlCSP allows nothing but the inline style sheet (and data: images,
// though render embeds none).
const htmlCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

// htmlCSS is the page's only style sheet. It holds no "<", so it cannot
// end the <style> element early.
const htmlCSS = `:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0;
  --box: #f6f8fa; --user: #eef6ff; --instr: #fff8e1; --instr-border: #d4a72c;
  --accent: #0969da; --error: #cf222e;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d;
    --box: #151b23; --user: #0f2238; --instr: #2b2111; --instr-border: #9e6a03;
    --accent: #4493f8; --error: #f85149;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.25rem 4rem; }
h1 { font-size: 1.5rem; margin: 1rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 2.5rem 0 .75rem; padding-bottom: .3rem;
  border-bottom: 2px solid var(--border); }
.msg { margin: .75rem 0; padding: .6rem .9rem; border: 1px solid var(--border);
  border-radius: 8px; overflow-wrap: anywhere; }
.msg.user { background: var(--user); }
.msg.tool { background: var(--box); }
.msg.instructions { background: var(--instr); border: 1px dashed var(--instr-border); }
.msg.unreadable { border-color: var(--error); }
.msg header { font-size: .85rem; color: var(--muted); margin-bottom: .35rem; }
.role { font-weight: 600; color: var(--fg); }
.msg.assistant .role { color: var(--accent); }
.msg.unreadable .role, .error summary { color: var(--error); }
.badge { display: inline-block; margin-left: .4rem; padding: 0 .45rem; font-size: .75rem;
  border: 1px solid var(--instr-border); border-radius: 1rem; }
.id { color: var(--muted); font-weight: normal; }
.text { white-space: pre-wrap; margin: .35rem 0; }
.refusal { border-left: 3px solid var(--error); padding-left: .6rem; }
.label, .note { color: var(--muted); font-style: italic; margin: .35rem 0; }
.media { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .85rem; color: var(--muted); margin: .35rem 0; }
details { margin: .35rem 0; }
summary { cursor: pointer; color: var(--muted); font-size: .9rem; }
details[open] summary { margin-bottom: .3rem; }
details.thinking .text { color: var(--muted); font-style: italic; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85rem; }
pre { margin: .35rem 0; padding: .5rem .7rem; background: var(--box); border: 1px solid var(--border);
  border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 40rem; overflow: auto; }
.msg.tool pre { background: var(--bg); }
`

// HTML returns the transcript.html piece for one message: an <h2> when m
// starts a turn, then an <article> with a header naming the role and time
// and the content. The piece is balanced HTML and ends with "\n"; it
// depends only on m.
func HTML(m Message) []byte {
	var b strings.Builder
	if m.Turn > 0 {
		n := strconv.Itoa(m.Turn)
		b.WriteString("<h2 id=\"turn-" + n + "\">Turn " + n + "</h2>\n")
	}
	o, ok := parseObject(m.Raw)
	if !ok {
		// As in Markdown: a damaged or foreign line shows up, escaped.
		b.WriteString("<article class=\"msg unreadable\">\n")
		b.WriteString("<header><span class=\"role\">unreadable message</span></header>\n")
		b.WriteString(htmlPre("", string(m.Raw)))
		b.WriteString("\n</article>\n")
		return []byte(b.String())
	}
	if isEvent(o) {
		return []byte(b.String())
	}
	name, class := htmlRole(o)
	instructions := class == "system" || class == "developer"
	if instructions {
		class += " instructions"
	}
	if o.isTrue("continues") {
		// The same response as the message before: no second header.
		b.WriteString("<article class=\"msg " + class + " continues\">\n")
	} else {
		b.WriteString("<article class=\"msg " + class + "\">\n<header><span class=\"role\">" + htmlEscape(name) + "</span>")
		if instructions {
			b.WriteString("<span class=\"badge\">instructions</span>")
		}
		if ts, ok := o.str("ts"); ok && ts != "" {
			b.WriteString(" · <span class=\"ts\">" + htmlEscape(htmlTS(ts)) + "</span>")
		}
		b.WriteString("</header>\n")
	}
	content := body(o, htmlStyle{})
	if instructions {
		content = "<details class=\"instructions\"><summary>" + htmlEscape(name) + "</summary>\n" +
			content + "\n</details>"
	}
	b.WriteString(content)
	b.WriteString("\n</article>\n")
	return []byte(b.String())
}

// htmlRole returns the role's name for a reader, the same as Markdown's
// label (roleName), and a class for styling: one of a fixed set, since the
// role itself is arbitrary text.
func htmlRole(o object) (name, class string) {
	role, _ := o.str("role")
	switch role {
	case "system", "developer", "user", "assistant":
		class = role
	case "tool":
		class = "tool"
	default:
		// roleName escapes other roles for Markdown; here they are shown
		// as text and escaped for HTML instead.
		if role != "" {
			return oneLine(role), "other"
		}
		return roleName(o), "other"
	}
	name = roleName(o)
	if name == "tool result" {
		class = "tool"
	}
	return name, class
}

// htmlTS is formatTS for HTML: a time that does not parse is shown as
// stored, on one line (formatTS would escape it for Markdown).
func htmlTS(ts string) string {
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
		return oneLine(ts)
	}
	return formatTS(ts)
}

// htmlStyle is how transcript.html shows each part of a message (see
// shapes.go for which parts there are).
type htmlStyle struct{}

var _ style = htmlStyle{}

func (htmlStyle) text(s string) string { return htmlText(s) }
func (htmlStyle) code(s string) string { return htmlPre("", s) }
func (htmlStyle) json(v []byte) string { return htmlJSON(v) }
func (htmlStyle) note(s string) string { return htmlNote("(" + s + ")") }
func (htmlStyle) refusal(s string) string {
	return "<div class=\"refusal\"><p class=\"label\">refusal</p>" + htmlText(s) + "</div>"
}
func (htmlStyle) media(typ string, b object) (string, bool) { return htmlMedia(typ, b) }
func (htmlStyle) join(parts []string) string                { return htmlJoin(parts) }

// thinking is collapsed in a <details>.
func (h htmlStyle) thinking(parts []string, encrypted bool) string {
	var inner string
	if strings.Join(parts, "") != "" {
		inner = htmlJoin(parts)
	} else if encrypted {
		inner = h.note("encrypted")
	}
	return htmlThinking(inner)
}

// htmlJoin puts non-empty parts one per line, or says the message is empty.
func htmlJoin(parts []string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return htmlNote("(empty)")
	}
	return strings.Join(kept, "\n")
}

// htmlThinking wraps rendered thinking in a collapsed <details>.
func htmlThinking(inner string) string {
	if inner == "" {
		inner = htmlNote("(empty)")
	}
	return "<details class=\"thinking\"><summary>thinking</summary>\n" + inner + "\n</details>"
}

// toolCall is a collapsed <details> whose summary names the tool, with
// the input inside.
func (htmlStyle) toolCall(name, id, input string) string {
	summary := "tool call"
	if name != "" {
		summary += ": " + htmlEscape(oneLine(name))
	}
	summary += htmlID(id)
	if input == "" {
		input = htmlNote("(no input)")
	}
	return "<details class=\"tool-call\"><summary>" + summary + "</summary>\n" + input + "\n</details>"
}

// toolResult is a collapsed <details> with the output inside: text in
// <pre> (it is file contents, command output…, not prose), images as
// references, anything else as JSON.
func (htmlStyle) toolResult(id string, isError bool, parts []string) string {
	class, summary := "tool-result", "tool result"
	if isError {
		class, summary = "tool-result error", "tool result (error)"
	}
	summary += htmlID(id)
	return "<details class=\"" + class + "\"><summary>" + summary + "</summary>\n" +
		htmlJoin(parts) + "\n</details>"
}

// htmlMedia describes an image, document or file block in one line of
// text, as media does for Markdown: "[image: image/png, 12 KB]". Nothing is
// embedded or linked: base64 data is only measured, and a URL is shown as
// text, so the page makes no requests and stays small.
func htmlMedia(typ string, b object) (string, bool) {
	r, ok := parseMedia(typ, b)
	if !ok {
		return "", false
	}
	return "<p class=\"media\">" + htmlEscape(r.describe(oneLine, htmlSized)) + "</p>", true
}

// htmlSized is "image/png, 12 KB": the media type (omitted when unknown)
// and the size of the data, decoded when it is base64.
func htmlSized(mediaType, data string, base64 bool) string {
	n := len(data)
	if base64 {
		n = len(strings.TrimRight(data, "=")) * 3 / 4
	}
	s := htmlSize(n)
	if mediaType != "" {
		s = oneLine(mediaType) + ", " + s
	}
	return s
}

// htmlSize formats a byte count for a reader: "512 bytes", "12 KB", "3.4 MB".
func htmlSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + " bytes"
	case n < 1024*1024:
		return strconv.Itoa((n+512)/1024) + " KB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MB"
}

// htmlID is a call id for a summary line, or "" when there is none.
func htmlID(id string) string {
	if id == "" {
		return ""
	}
	return " <span class=\"id\">· " + htmlEscape(oneLine(id)) + "</span>"
}

// htmlText shows text written by a user or a model as it is written, in a
// pre-wrap <div>: Markdown is not rendered, and nothing becomes a link.
// Leading blank lines and trailing white space go; "" for blank text.
func htmlText(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if s == "" {
		return ""
	}
	if i := strings.LastIndexAny(s[:len(s)-len(strings.TrimLeft(s, " \t\r\n"))], "\r\n"); i >= 0 {
		s = s[i+1:]
	}
	return "<div class=\"text\">" + htmlEscape(s) + "</div>"
}

// htmlPre shows s verbatim in a <pre>. The newline after <pre> is the one
// the HTML parser drops, so a newline that starts s is kept.
func htmlPre(class, s string) string {
	open := "<pre>\n"
	if class != "" {
		open = "<pre class=\"" + class + "\">\n"
	}
	return open + htmlEscape(s) + "</pre>"
}

// htmlJSON shows a JSON value indented, keeping its own bytes (as
// jsonFence does), or as it is when it does not parse.
func htmlJSON(v []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, v, "", "  "); err != nil {
		return htmlPre("json", string(v))
	}
	return htmlPre("json", string(unescapeHTML(buf.Bytes())))
}

// htmlNote is a remark of render's own, such as "(empty)".
func htmlNote(s string) string {
	return "<p class=\"note\">" + s + "</p>"
}

// htmlEscape makes s safe as HTML text or a quoted attribute value: invalid
// UTF-8 becomes U+FFFD, control characters that a browser would not show
// become visible symbols (ESC as ␛, so terminal colour codes can be seen),
// and <, >, &, ' and " become character references.
func htmlEscape(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || htmlControl(r) {
			clean = false
			break
		}
		i += size
	}
	if !clean {
		var b strings.Builder
		b.Grow(len(s))
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteRune(utf8.RuneError)
			case r < 0x20:
				b.WriteRune(0x2400 + r) // ␀ … ␟
			case r == 0x7f:
				b.WriteRune(0x2421) // ␡
			case htmlControl(r):
				b.WriteRune(utf8.RuneError)
			default:
				b.WriteRune(r)
			}
		}
		s = b.String()
	}
	return html.EscapeString(s)
}

// htmlControl reports whether r is a control character that HTML does not
// treat as text or white space (all but tab, line feed and carriage
// return), or a noncharacter, which HTML also reports as an error.
func htmlControl(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0xfdd0 && r <= 0xfdef || r&0xfffe == 0xfffe:
		return true
	}
	return false
}
