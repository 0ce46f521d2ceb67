package render

import (
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HTML rendering: transcript.html and `sessfs export --format html`.
//
// The file follows the same per-message contract as transcript.md (see the
// package doc), with a fixed head and tail around the pieces:
//
//	file = HTMLHeadFor(header) + HTML(m0) + … + HTML(mn-1) + HTMLTail()
//
// Each piece is balanced on its own (every element it opens, it closes) and
// ends with "\n", so a piece cannot change how the next one renders and the
// filesystem can serve byte ranges by rendering only the pieces a read
// covers.
//
// The page is self-contained and inert: inline CSS only, no script, and a
// Content-Security-Policy that forbids loading anything but data: images.
// Text written by a user or a model is Markdown and is rendered as such
// (html_markdown.go), raw HTML in it shown as text; output, inputs and
// everything else taken from a message are HTML-escaped and shown as
// text. Small images in a message are drawn from data: URLs; other
// images are described.
//
// Markup, for styling and for tools that read the file:
//
//	<h1>…</h1><dl class="session">…</dl>         the title and header (HTMLHeadFor)
//	<h2 id="turn-N">Turn N</h2>                 a turn start
//	<article class="msg ROLE">                   one message; ROLE is user,
//	                                             assistant, system, tool,
//	                                             other or unreadable
//	  <header><span class="role">…</span> · <span class="ts">…</span></header>
//	  <div class="text">…</div>                  text, its Markdown rendered
//	  <div class="refusal">…</div>               a model's refusal
//	  <details class="thinking">…</details>      thinking / reasoning
//	  <p class="note">(encrypted thinking)</p>   reasoning with nothing to read
//	  <details class="tool-call">                a tool call, input in <pre>
//	    <summary>tool call: NAME <code class="arg">…</code> …</summary>
//	  <details class="tool-call todos" open="">  a to-do list, <ul class="todos">
//	  <details class="tool-result [error]">…</details>
//	  <img class="media" src="data:…" alt="…">   a small image
//	  <p class="media">[image: …]</p>            any other image, document or file
//	  <pre class="json">…</pre>                  a shape render does not know
//	  <p class="note">(empty)</p>                a remark of render's own
//	  <p class="note cut">[cut: …]</p>           what the piece leaves out (limits.go)
//	</article>
//	<article class="msg context">               injected context, collapsed in
//	  <details class="context">…</details>       <details>, its kind and size
//	</article>                                   on the summary line
//	<article class="msg compaction">…</article>  a compaction: a marker, the
//	                                             summary in <details>
//
// System messages also carry the class "instructions", a badge in the
// header, and their content collapsed in <details class="instructions">.

// HTMLHeadFor is the start of transcript.html: doctype, <head> with the
// title and an inline <style>, the opening of <body>/<main>, and the
// header: the title, then the header's fields as a <dl>. Values are plain
// text; they are escaped here.
func HTMLHeadFor(h Header) []byte {
	t := htmlEscape(oneLine(h.title()))
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
	if fs := h.fields(); len(fs) > 0 {
		b.WriteString("<dl class=\"session\">\n")
		for _, f := range fs {
			v := htmlEscape(oneLine(f.value))
			if f.code {
				v = "<code>" + v + "</code>"
			}
			b.WriteString("<dt>" + f.name + "</dt><dd>" + v + htmlEscape(f.more) + "</dd>\n")
		}
		b.WriteString("</dl>\n")
	}
	return []byte(b.String())
}

// HTMLTail closes what HTMLHeadFor opened: <main>, <body> and <html>.
func HTMLTail() []byte {
	return []byte("</main>\n</body>\n</html>\n")
}

// htmlCSP allows nothing but the inline style sheet and data: images.
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
.text { margin: .35rem 0; }
.text > :first-child { margin-top: 0; }
.text > :last-child { margin-bottom: 0; }
.text p, .text ul, .text ol, .text table, .text blockquote { margin: .5rem 0; }
.text.plain, .text .raw { white-space: pre-wrap; }
.text h3, .text h4, .text h5, .text h6 { margin: .9rem 0 .4rem; }
.text h3 { font-size: 1.15rem; } .text h4 { font-size: 1.05rem; } .text h5, .text h6 { font-size: 1rem; }
.text table { border-collapse: collapse; }
.text th, .text td { border: 1px solid var(--border); padding: .25rem .6rem; }
.text th { background: var(--box); }
.text blockquote { margin-left: 0; padding-left: .8rem; border-left: 3px solid var(--border); color: var(--muted); }
.text code, summary code { background: var(--box); padding: .05rem .3rem; border-radius: 4px; }
.text pre code { background: none; padding: 0; }
summary .arg { color: var(--fg); }
img.media { display: block; max-width: 100%; max-height: 40rem; margin: .35rem 0;
  border: 1px solid var(--border); border-radius: 6px; }
ul.todos { list-style: none; padding-left: .5rem; margin: .35rem 0; }
ul.todos .done { color: var(--muted); }
.msg.context { padding: .15rem .9rem; border-style: dashed; }
.msg.compaction { border: 2px dashed var(--accent); }
.mark { color: var(--accent); font-style: italic; margin: .4rem .9rem; }
.msg.compaction .role { color: var(--accent); }
dl.session { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem;
  margin: 0 0 1.5rem; font-size: .9rem; color: var(--muted); }
dl.session dd { margin: 0; color: var(--fg); overflow-wrap: anywhere; }
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
// depends only on m. It is AppendHTML's piece in a slice of its own, of
// its exact size.
func HTML(m Message) []byte {
	return exactly(AppendHTML, m)
}

// AppendHTML appends HTML(m) to dst and returns the extended slice, as
// AppendMarkdown does.
func AppendHTML(dst []byte, m Message) []byte {
	var buf objectBuf // the message's members stay on the stack
	o, ok := parseObjectIn(buf[:0], m.Raw)
	f := readFields(o)
	event := ok && isEvent(&f)
	if m.Note != "" && !event {
		dst = append(dst, htmlMark(m.Note)...)
	}
	if m.Turn > 0 {
		dst = append(dst, "<h2 id=\"turn-"...)
		dst = strconv.AppendInt(dst, int64(m.Turn), 10)
		dst = append(dst, "\">Turn "...)
		dst = strconv.AppendInt(dst, int64(m.Turn), 10)
		dst = append(dst, "</h2>\n"...)
	}
	if !ok {
		// As in Markdown: a damaged or foreign line shows up, escaped.
		dst = append(dst, "<article class=\"msg unreadable\">\n"...)
		dst = append(dst, "<header><span class=\"role\">unreadable message</span></header>\n"...)
		dst = append(dst, (&walk{st: htmlStyle{}}).code(string(m.Raw))...)
		return append(dst, "\n</article>\n"...)
	}
	if event {
		if m.Note != "" {
			dst = append(dst, htmlMark(m.Note)...)
		}
		return dst
	}
	switch k := contextKind(&f); {
	case k == "compaction":
		return append(dst, htmlCompaction(&f)...)
	case k != "":
		return append(dst, htmlContext(k, &f)...)
	}
	name, class := htmlRole(&f)
	name = htmlEscape(oneLine(name))
	instructions := class == "system"
	if instructions {
		class += " instructions"
	}
	dst = append(dst, "<article class=\"msg "...)
	dst = append(dst, class...)
	if f.continues.isTrue() {
		// The same response as the message before: no second header.
		dst = append(dst, " continues\">\n"...)
	} else {
		dst = append(dst, "\">\n<header><span class=\"role\">"...)
		dst = append(dst, name...)
		dst = append(dst, "</span>"...)
		if instructions {
			dst = append(dst, "<span class=\"badge\">instructions</span>"...)
		}
		dst = appendHTMLTS(dst, &f)
		dst = append(dst, "</header>\n"...)
	}
	if instructions {
		dst = append(dst, "<details class=\"instructions\"><summary>"...)
		dst = append(dst, name...)
		dst = append(dst, "</summary>\n"...)
	}
	dst = append(dst, body(&f, htmlStyle{})...)
	if instructions {
		dst = append(dst, "\n</details>"...)
	}
	return append(dst, "\n</article>\n"...)
}

// appendHTMLTS appends " · <time>" for a message's header, or nothing
// when it has no time.
func appendHTMLTS(dst []byte, f *fields) []byte {
	return appendTS(dst, f, " · <span class=\"ts\">", "</span>", htmlTSEscape)
}

// htmlTSPart is appendHTMLTS as a string.
func htmlTSPart(f *fields) string {
	return string(appendHTMLTS(nil, f))
}

func htmlTSEscape(s string) string { return htmlEscape(oneLine(s)) }

// htmlContext is injected context collapsed: its kind and size on the
// summary line, its content inside.
func htmlContext(kind string, f *fields) string {
	return "<article class=\"msg context\">\n<details class=\"context\"><summary>context: " +
		htmlEscape(shorten(kind)) + " · " + sizeText(contentSize(f.content.val)) + htmlTSPart(f) + "</summary>\n" +
		body(f, htmlStyle{}) + "\n</details>\n</article>\n"
}

// htmlMark is a note the caller adds (Message.Note), as Markdown's.
func htmlMark(note string) string {
	return "<p class=\"mark\">" + htmlEscape(oneLine(shorten(note))) + "</p>\n"
}

// htmlCompaction marks where the conversation was compacted, with the
// summary the agent went on from collapsed below.
func htmlCompaction(f *fields) string {
	return "<article class=\"msg compaction\">\n<header><span class=\"role\">compaction</span>" + htmlTSPart(f) +
		"</header>\n<details class=\"compaction\"><summary>summary · " + sizeText(contentSize(f.content.val)) + "</summary>\n" +
		body(f, htmlStyle{}) + "\n</details>\n</article>\n"
}

// htmlRole returns the role's name for a reader, the same as Markdown's
// label (roleName), unescaped, and a class for styling: one of a fixed
// set, since the role itself is arbitrary text. A user or tool message
// that only carries tool results is styled as a tool's.
func htmlRole(f *fields) (name, class string) {
	name = roleName(f)
	switch role := f.role; role {
	case "system", "assistant":
		return name, role
	case "user", "tool":
		if name == "tool result" {
			return name, "tool"
		}
		return name, role
	}
	return name, "other"
}

// htmlStyle is how transcript.html shows each part of a message (see
// shapes.go for which parts there are).
type htmlStyle struct{}

var _ style = htmlStyle{}

func (htmlStyle) text(s string) string  { return htmlText(s, true) }
func (htmlStyle) plain(s string) string { return htmlText(s, false) }
func (htmlStyle) code(s string) string  { return htmlPre("", s) }
func (htmlStyle) json(s string) string  { return htmlPre("json", s) }
func (htmlStyle) note(s string) string  { return htmlNote("(" + s + ")") }
func (htmlStyle) refusal(text string) string {
	return "<div class=\"refusal\"><p class=\"label\">refusal</p>" + text + "</div>"
}
func (htmlStyle) join(parts []string) string { return htmlJoin(parts) }

// cut is a marker: "<p class="note cut">[cut: 2.0 MB more; …]</p>".
func (htmlStyle) cut(note string) string {
	return "<p class=\"note cut\">[" + htmlEscape(note) + "]</p>"
}

// thinking is collapsed in a <details>.
func (htmlStyle) thinking(parts []string) string {
	return "<details class=\"thinking\"><summary>thinking</summary>\n" + htmlJoin(parts) + "\n</details>"
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

// toolCall is a collapsed <details> whose summary names the tool and what
// it acts on (a command, a path), with the input inside.
func (htmlStyle) toolCall(name, id, arg, input string) string {
	if input == "" {
		input = htmlNote("(no input)")
	}
	return "<details class=\"tool-call\"><summary>" + htmlCallSummary(name, id, arg) + "</summary>\n" + input + "\n</details>"
}

// htmlCallSummary is "tool call: NAME <code class="arg">ARG</code> · ID".
func htmlCallSummary(name, id, arg string) string {
	s := "tool call"
	if name != "" {
		s += ": " + htmlEscape(oneLine(name))
	}
	if arg != "" {
		s += " <code class=\"arg\">" + htmlEscape(arg) + "</code>"
	}
	return s + htmlID(id)
}

// todoCall shows a to-do list open, as the agent's screen does: done
// items ticked, the one in progress in bold.
func (htmlStyle) todoCall(name, id, explanation string, list []todo) string {
	var b strings.Builder
	// open="", not a bare open: every attribute on the page is written
	// name="value", as goldmark writes its own, so one rule reads them all.
	b.WriteString("<details class=\"tool-call todos\" open=\"\"><summary>" + htmlCallSummary(name, id, "") + "</summary>\n")
	if explanation != "" {
		b.WriteString(explanation + "\n")
	}
	b.WriteString("<ul class=\"todos\">\n")
	for _, t := range list {
		text := htmlEscape(oneLine(t.text))
		switch t.status {
		case "completed":
			b.WriteString("<li class=\"done\">☑ " + text + "</li>\n")
		case "in_progress":
			b.WriteString("<li class=\"doing\">☐ <strong>" + text + "</strong> (in progress)</li>\n")
		default:
			b.WriteString("<li>☐ " + text + "</li>\n")
		}
	}
	b.WriteString("</ul>\n</details>")
	return b.String()
}

// toolResult is a collapsed <details> with the output inside: text in
// <pre> (it is file contents, command output…, not prose), images drawn
// or described, anything else as JSON. Its summary says how it failed.
func (htmlStyle) toolResult(id, failure string, parts []string) string {
	class, summary := "tool-result", "tool result"
	if failure != "" {
		class, summary = "tool-result error", "tool result ("+htmlEscape(failure)+")"
	}
	summary += htmlID(id)
	return "<details class=\"" + class + "\"><summary>" + summary + "</summary>\n" +
		htmlJoin(parts) + "\n</details>"
}

// media draws a small image from its data: URL, and describes anything
// else in one line, "[image: image/png, 3.0 MB — not shown; see
// export.json]": a URL is shown as text and never loaded.
func (htmlStyle) media(r mediaRef) string {
	d := r.describe(oneLine)
	if src, ok := r.dataURL(); ok {
		return "<img class=\"media\" src=\"" + src + "\" alt=\"" + htmlEscape(d) + "\">"
	}
	switch {
	case r.inline:
		d += " — not shown; see export.json"
	case r.url != "":
		d += " — not loaded"
	}
	return "<p class=\"media\">" + htmlEscape("["+d+"]") + "</p>"
}

// htmlID is a call id for a summary line, or "" when there is none.
func htmlID(id string) string {
	if id == "" {
		return ""
	}
	return " <span class=\"id\">· " + htmlEscape(oneLine(id)) + "</span>"
}

// htmlText shows text written by a user or a model, its Markdown rendered
// (html_markdown.go) when markdown is set, trimmed as in Markdown
// (trimText); "" for blank text. Text that would cost goldmark too
// much (markdownCostly), or whose HTML would be more than
// maxMarkdownGrowth times its size, is shown as written.
func htmlText(s string, markdown bool) string {
	s = trimText(s)
	if s == "" {
		return ""
	}
	if markdown && !markdownCostly(s) {
		if plainMarkdown(s) {
			var b strings.Builder // one allocation, the result
			b.Grow(len(s) + 64)
			b.WriteString("<div class=\"text\">")
			writePlainMarkdownHTML(&b, s)
			b.WriteString("</div>")
			return b.String()
		}
		if h := markdownHTML(htmlClean(s)); len(h) <= maxMarkdownGrowth*len(s)+1024 {
			return "<div class=\"text\">" + h + "</div>"
		}
	}
	return "<div class=\"text plain\">" + htmlEscape(s) + "</div>"
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

// htmlNote is a remark of render's own, such as "(empty)".
func htmlNote(s string) string {
	return "<p class=\"note\">" + s + "</p>"
}

// htmlEscape makes s safe as HTML text or a quoted attribute value
// (htmlClean), and <, >, &, ' and " become character references.
func htmlEscape(s string) string {
	return html.EscapeString(htmlClean(s))
}

// htmlClean makes s text a browser shows as it is: invalid UTF-8 becomes
// U+FFFD, and control characters that a browser would not show become
// visible symbols (ESC as ␛, so terminal colour codes can be seen).
func htmlClean(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || htmlControl(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
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
	return b.String()
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
