package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// htmlPieceTags are the elements a piece may hold: render's own and those
// goldmark writes for Markdown; htmlDocTags adds those of the head and
// tail. Anything else, <script> above all, fails the check. htmlVoid are
// the ones without an end tag.
var (
	htmlPieceTags = map[string]bool{
		"h2": true, "article": true, "header": true, "span": true, "div": true,
		"p": true, "details": true, "summary": true, "pre": true, "code": true,
		"em": true, "strong": true, "del": true, "ul": true, "ol": true, "li": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
		"blockquote": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"a": true, "img": true, "br": true, "hr": true, "input": true,
	}
	htmlDocTags = map[string]bool{
		"html": true, "head": true, "meta": true, "title": true, "style": true,
		"body": true, "main": true, "h1": true, "dl": true, "dt": true, "dd": true,
	}
	htmlVoid  = map[string]bool{"meta": true, "img": true, "br": true, "hr": true, "input": true}
	htmlAttrs = map[string]bool{
		"class": true, "id": true, "lang": true, "charset": true,
		"http-equiv": true, "name": true, "content": true, "open": true,
		"align": true, "start": true, "title": true, "alt": true,
		"checked": true, "disabled": true, "type": true,
		"href": true, "rel": true, "src": true, // checked by checkURLAttrs
	}
	htmlEntities = []string{"&lt;", "&gt;", "&amp;", "&#39;", "&#34;", "&quot;"}
)

// checkHTML is a small checker for the HTML render writes: every "<" starts
// an allowed tag (or the doctype, when doc is set), tags nest and close
// properly, attributes are name="value" with allowed names and no URLs,
// every "&" starts one of the references html.EscapeString writes, and no
// ">" is left in text. It is not an HTML parser; it only accepts a strict
// subset, which is what render must produce.
func checkHTML(s string, doc bool) error {
	allowed := func(name string) bool {
		return htmlPieceTags[name] || doc && htmlDocTags[name]
	}
	var stack []string
	for i := 0; i < len(s); {
		switch s[i] {
		case '>':
			return fmt.Errorf("stray > at %d: %q", i, around(s, i))
		case '&':
			ok := false
			for _, e := range htmlEntities {
				if strings.HasPrefix(s[i:], e) {
					ok, i = true, i+len(e)
					break
				}
			}
			if !ok {
				return fmt.Errorf("bare & at %d: %q", i, around(s, i))
			}
			continue
		case '<':
		default:
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			return fmt.Errorf("unterminated tag at %d: %q", i, around(s, i))
		}
		tag := s[i+1 : i+end]
		start := i
		i += end + 1
		if doc && start == 0 && tag == "!doctype html" {
			continue
		}
		if name, ok := strings.CutPrefix(tag, "/"); ok {
			if !allowed(name) {
				return fmt.Errorf("closing tag %q not allowed at %d", tag, start)
			}
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("</%s> at %d does not close the open element (stack %v): %q", name, start, stack, around(s, start))
			}
			stack = stack[:len(stack)-1]
			continue
		}
		name, attrs, _ := strings.Cut(tag, " ")
		if !allowed(name) {
			return fmt.Errorf("tag <%s> not allowed at %d: %q", name, start, around(s, start))
		}
		if err := checkAttrs(name, attrs); err != nil {
			return fmt.Errorf("<%s> at %d: %v", name, start, err)
		}
		switch {
		case htmlVoid[name]:
			continue
		case name == "style": // raw text: skip to its end tag
			j := strings.Index(s[i:], "</style>")
			if j < 0 || strings.Contains(s[i:i+j], "<") {
				return fmt.Errorf("bad <style> at %d", start)
			}
			i += j + len("</style>")
			continue
		}
		stack = append(stack, name)
	}
	if len(stack) > 0 {
		return fmt.Errorf("elements left open: %v", stack)
	}
	return nil
}

// checkAttrs checks a tag's attributes: space-separated name="value",
// no URL but a link's to the web or a mail address, which sends no
// referrer, and an image's from data.
func checkAttrs(tag, attrs string) error {
	have := map[string]string{}
	for attrs != "" {
		name, rest, ok := strings.Cut(attrs, `="`)
		if !ok || !htmlAttrs[name] {
			return fmt.Errorf("bad attribute in %q", attrs)
		}
		value, rest, ok := strings.Cut(rest, `"`)
		if !ok || strings.ContainsAny(value, "<>") {
			return fmt.Errorf("bad attribute value in %q", attrs)
		}
		if rest != "" && rest[0] != ' ' {
			return fmt.Errorf("attributes run together in %q", attrs)
		}
		have[name] = value
		attrs = strings.TrimPrefix(rest, " ")
	}
	for name, value := range have {
		switch {
		case name == "href" && tag == "a":
			if !(strings.HasPrefix(value, "https://") || strings.HasPrefix(value, "http://") || strings.HasPrefix(value, "mailto:")) {
				return fmt.Errorf("link to %q", value)
			}
			if have["rel"] != "noreferrer nofollow" {
				return fmt.Errorf("link to %q sends a referrer", value)
			}
		case name == "src" && tag == "img":
			if !strings.HasPrefix(value, "data:image/") {
				return fmt.Errorf("image from %q", value)
			}
		case name == "href" || name == "src":
			return fmt.Errorf("%s on <%s>", name, tag)
		case strings.Contains(value, "://"):
			return fmt.Errorf("bad attribute value %q", value)
		}
		for i := strings.IndexByte(value, '&'); i >= 0; i = strings.IndexByte(value, '&') {
			if !slices.ContainsFunc(htmlEntities, func(e string) bool { return strings.HasPrefix(value[i:], e) }) {
				return fmt.Errorf("bare & in attribute value %q", value)
			}
			value = value[i+1:]
		}
	}
	if tag == "a" && have["href"] == "" {
		return fmt.Errorf("a link without an address")
	}
	return nil
}

func around(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+40)]
}

// checkHTMLPiece asserts what every piece must satisfy.
func checkHTMLPiece(t testing.TB, m Message, got []byte) {
	t.Helper()
	if !bytes.HasSuffix(got, []byte("\n")) {
		t.Errorf("piece does not end with a newline: %q", got)
	}
	if !utf8.Valid(got) {
		t.Errorf("piece is not valid UTF-8: %q", got)
	}
	if bytes.Contains(bytes.ToLower(got), []byte("<script")) {
		t.Errorf("piece holds <script: %s", got)
	}
	if err := checkHTML(string(got), false); err != nil {
		t.Errorf("piece is not balanced: %v\n%s", err, got)
	}
	if again := HTML(m); !bytes.Equal(again, got) {
		t.Errorf("not deterministic:\n%s\n---\n%s", got, again)
	}
}

const hostile = `<script>alert(1)</script> & "double" 'single' </article></details>`

// hostileEscaped is hostile as html.EscapeString writes it.
var hostileEscaped = html.EscapeString(hostile)

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var htmlShapes = []struct {
	name string
	raw  string
	turn int
	want []string // substrings of the piece
	not  []string // strings the piece must not hold
}{
	{
		name: "string content starting turn 1",
		raw:  `{"role":"user","content":"Hello **world**","id":"a","ts":"2026-11-22T11:25:03.123456Z"}`,
		turn: 1,
		want: []string{
			"<h2 id=\"turn-1\">Turn 1</h2>\n<article class=\"msg user\">\n",
			`<span class="role">user</span> · <span class="ts">2026-11-22 11:25:03 UTC</span>`,
			`<div class="text"><p>Hello <strong>world</strong></p></div>`,
		},
	},
	{
		name: "continuation has no heading and no time",
		raw:  `{"role":"assistant","content":"\n\nHi.\n  "}`,
		want: []string{"<article class=\"msg assistant\">\n<header><span class=\"role\">assistant</span></header>\n<div class=\"text\"><p>Hi.</p></div>\n</article>\n"},
		not:  []string{"<h2", `class="ts"`},
	},
	{
		name: "later turn and unparseable time",
		raw:  `{"role":"user","content":"x","ts":"yesterday *noon*"}`,
		turn: 12,
		want: []string{`<h2 id="turn-12">Turn 12</h2>`, `<span class="ts">yesterday *noon*</span>`},
	},
	{
		name: "system prompt is marked and collapsed",
		raw:  `{"role":"system","content":"Be brief.","ts":"2026-11-22T11:25:03Z"}`,
		want: []string{
			`<article class="msg system instructions">`,
			`<span class="role">system prompt</span><span class="badge">instructions</span>`,
			"<details class=\"instructions\"><summary>system prompt</summary>\n<div class=\"text\"><p>Be brief.</p></div>\n</details>",
		},
		not: []string{"<details class=\"instructions\" open"},
	},
	{
		name: "developer is instructions, collapsed context",
		raw:  `{"role":"developer","content":[{"type":"input_text","text":"Rules."}],"ts":"2026-11-22T11:25:03Z"}`,
		want: []string{
			"<article class=\"msg context\">\n<details class=\"context\"><summary>context: instructions · 6 bytes · <span class=\"ts\">2026-11-22 11:25:03 UTC</span></summary>\n" +
				"<div class=\"text\"><p>Rules.</p></div>\n</details>\n</article>\n",
		},
		not: []string{" open", "<header>"},
	},
	{
		name: "injected context of any kind is collapsed",
		raw:  `{"role":"user","context":"environment","content":"<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"}`,
		want: []string{
			"<details class=\"context\"><summary>context: environment · 60 bytes</summary>",
			"&lt;environment_context&gt;",
		},
		not: []string{"<environment_context>", " open"},
	},
	{
		name: "compaction is a marker with its summary collapsed",
		raw:  `{"role":"system","context":"compaction","content":"Summary:\n1. **Goal**: fix it","ts":"2026-11-22T11:25:03Z"}`,
		want: []string{
			"<article class=\"msg compaction\">\n<header><span class=\"role\">compaction</span> · <span class=\"ts\">2026-11-22 11:25:03 UTC</span></header>\n" +
				"<details class=\"compaction\"><summary>summary · 28 bytes</summary>\n<div class=\"text\"><p>Summary:</p>\n<ol>\n<li><strong>Goal</strong>: fix it</li>\n</ol></div>\n</details>\n</article>\n",
		},
	},
	{
		name: "odd role shown as text, classed other",
		raw:  `{"role":"a*b<c>\nd","content":"x"}`,
		want: []string{`<article class="msg other">`, `<span class="role">a*b&lt;c&gt; d</span>`},
	},
	{
		name: "missing role",
		raw:  `{"content":"x"}`,
		want: []string{`<article class="msg other">`, `<span class="role">message</span>`},
	},
	{
		name: "anthropic blocks",
		raw: `{"role":"assistant","content":[` +
			`{"type":"thinking","thinking":"Let me think.","signature":"sig"},` +
			`{"type":"redacted_thinking","data":"xx"},` +
			`{"type":"text","text":"Reading the file."},` +
			`{"type":"tool_use","id":"toolu_1","name":"Read","input":{"path":"a<b>.go","n":1.50}}]}`,
		want: []string{
			"<details class=\"thinking\"><summary>thinking</summary>\n<div class=\"text\"><p>Let me think.</p></div>\n</details>",
			"<p class=\"note\">(redacted thinking)</p>",
			`<div class="text"><p>Reading the file.</p></div>`,
			`<details class="tool-call"><summary>tool call: Read <code class="arg">a&lt;b&gt;.go</code> <span class="id">· toolu_1</span></summary>`,
			"<pre class=\"json\">\n{\n  &#34;path&#34;: &#34;a&lt;b&gt;.go&#34;,\n  &#34;n&#34;: 1.50\n}</pre>",
		},
		not: []string{"sig", "<details class=\"thinking\" open"},
	},
	{
		name: "anthropic tool results, one an error",
		raw: `{"role":"user","content":[` +
			`{"type":"tool_result","tool_use_id":"toolu_1","content":"line 1\nline 2"},` +
			`{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"boom"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + strings.Repeat("A", 16384) + `"}}]},` +
			`{"type":"tool_result","tool_use_id":"toolu_3"}]}`,
		want: []string{
			`<article class="msg tool">`,
			`<span class="role">tool result</span>`,
			"<details class=\"tool-result\"><summary>tool result <span class=\"id\">· toolu_1</span></summary>\n<pre>\nline 1\nline 2</pre>\n</details>",
			"<details class=\"tool-result error\"><summary>tool result (error) <span class=\"id\">· toolu_2</span></summary>\n<pre>\nboom</pre>\n" +
				`<img class="media" src="data:image/png;base64,` + strings.Repeat("A", 16384) + `" alt="image: image/png, 12 KB">` + "\n</details>",
			"<p class=\"note\">(no output)</p>",
		},
	},
	{
		name: "images too big, remote or not drawable are described, never loaded",
		raw: `{"role":"user","content":[` +
			`{"type":"image","source":{"type":"url","url":"https://example.com/cat.png?a=1&b=2"}},` +
			`{"type":"image","source":{"type":"file","file_id":"file_1"}},` +
			`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"QUJD"}},` +
			`{"type":"input_image","image_url":"data:image/jpeg;base64,` + strings.Repeat("B", 4*1024*1024) + `"},` +
			`{"type":"image_url","image_url":{"url":"http://x.test/i.gif"}},` +
			`{"type":"input_file","filename":"notes.txt","file_data":"data:text/plain,hello"},` +
			`{"type":"image","source":{"type":"weird"}}]}`,
		want: []string{
			`<p class="media">[image: https://example.com/cat.png?a=1&amp;b=2 — not loaded]</p>`,
			`<p class="media">[image: file file_1]</p>`,
			`<p class="media">[document: application/pdf, 3 bytes — not shown; see export.json]</p>`,
			`<p class="media">[image: image/jpeg, 3.0 MB — not shown; see export.json]</p>`,
			`<p class="media">[image: http://x.test/i.gif — not loaded]</p>`,
			`<p class="media">[file: notes.txt, text/plain, 5 bytes — not shown; see export.json]</p>`,
			"<pre class=\"json\">\n{\n  &#34;type&#34;: &#34;image&#34;,\n  &#34;source&#34;: {\n    &#34;type&#34;: &#34;weird&#34;\n  }\n}</pre>",
		},
		not: []string{"BBBB", "<img", "src=", "href="},
	},
	{
		name: "openai response items",
		raw: `{"role":"assistant","content":[` +
			`{"type":"reasoning","summary":[{"type":"summary_text","text":"Plan the fix."},{"type":"summary_text","text":"Then test."}],"encrypted_content":"gAAA"},` +
			`{"type":"reasoning","summary":[],"encrypted_content":"gAAA"},` +
			`{"type":"output_text","text":"Done."},` +
			`{"type":"function_call","name":"shell","call_id":"call_1","arguments":"{\"cmd\":[\"ls\",\"-la\"]}"},` +
			`{"type":"function_call","name":"apply","call_id":"call_2","arguments":"not json"},` +
			`{"type":"custom_tool_call","name":"apply_patch","call_id":"call_3","input":"*** Begin Patch"},` +
			`{"type":"refusal","refusal":"I can't."}]}`,
		want: []string{
			"<details class=\"thinking\"><summary>thinking</summary>\n<div class=\"text\"><p>Plan the fix.</p></div>\n<div class=\"text\"><p>Then test.</p></div>\n</details>",
			"<p class=\"note\">(encrypted thinking)</p>",
			`<div class="text"><p>Done.</p></div>`,
			"<details class=\"tool-call\"><summary>tool call: shell <code class=\"arg\">ls -la</code> <span class=\"id\">· call_1</span></summary>\n<pre class=\"json\">\n{\n  &#34;cmd&#34;: [\n    &#34;ls&#34;,\n    &#34;-la&#34;\n  ]\n}</pre>\n</details>",
			"<summary>tool call: apply <span class=\"id\">· call_2</span></summary>\n<pre>\nnot json</pre>",
			"<summary>tool call: apply_patch <span class=\"id\">· call_3</span></summary>\n<pre>\n*** Begin Patch</pre>",
			`<div class="refusal"><p class="label">refusal</p><div class="text"><p>I can't.</p></div></div>`,
		},
		not: []string{"gAAA"},
	},
	{
		name: "openai input message and function_call_output",
		raw: `{"role":"user","content":[{"type":"input_text","text":"Fix it."},` +
			`{"type":"function_call_output","call_id":"call_1","output":"ok\n"}]}`,
		want: []string{
			`<article class="msg user">`,
			`<div class="text"><p>Fix it.</p></div>`,
			"<details class=\"tool-result\"><summary>tool result <span class=\"id\">· call_1</span></summary>\n<pre>\nok\n</pre>\n</details>",
		},
	},
	{
		name: "only function_call_output is a tool result",
		raw:  `{"role":"user","content":[{"type":"function_call_output","call_id":"c","output":{"exit":0}}]}`,
		want: []string{`<article class="msg tool">`, "<pre class=\"json\">\n{\n  &#34;exit&#34;: 0\n}</pre>"},
	},
	{
		name: "chat message with tool_calls",
		raw:  `{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"bad"}]}`,
		want: []string{
			"<summary>tool call: get_weather <span class=\"id\">· call_9</span></summary>\n<pre class=\"json\">\n{\n  &#34;city&#34;: &#34;Paris&#34;\n}</pre>",
			"<pre class=\"json\">\n{\n  &#34;id&#34;: &#34;bad&#34;\n}</pre>",
		},
		not: []string{"(empty)"},
	},
	{
		name: "chat tool message",
		raw:  `{"role":"tool","tool_call_id":"call_9","content":"sunny"}`,
		want: []string{
			`<article class="msg tool">`, `<span class="role">tool result</span>`,
			"<summary>tool result <span class=\"id\">· call_9</span></summary>\n<pre>\nsunny</pre>",
		},
	},
	{
		name: "tool call without input",
		raw:  `{"role":"assistant","content":[{"type":"tool_use","name":"Now","id":"t"}]}`,
		want: []string{"<summary>tool call: Now <span class=\"id\">· t</span></summary>\n<p class=\"note\">(no input)</p>"},
	},
	{
		name: "unknown blocks and content shapes",
		raw:  `{"role":"assistant","content":[{"type":"future","x":[1,2]},42,"bare string",{"text":"no type"}]}`,
		want: []string{
			"<pre class=\"json\">\n{\n  &#34;type&#34;: &#34;future&#34;,\n  &#34;x&#34;: [\n    1,\n    2\n  ]\n}</pre>",
			"<pre class=\"json\">\n42</pre>",
			`<div class="text"><p>bare string</p></div>`,
		},
	},
	{
		name: "object content",
		raw:  `{"role":"user","content":{"a":"b"}}`,
		want: []string{"<pre class=\"json\">\n{\n  &#34;a&#34;: &#34;b&#34;\n}</pre>"},
	},
	{
		name: "empty message",
		raw:  `{"role":"assistant","content":[{"type":"text","text":"  \n"}]}`,
		want: []string{`<p class="note">(empty)</p>`},
	},
	{
		name: "unparseable line",
		raw:  `{"role":"user","content":"<b>cut`,
		turn: 3,
		want: []string{
			"<h2 id=\"turn-3\">Turn 3</h2>\n<article class=\"msg unreadable\">\n<header><span class=\"role\">unreadable message</span></header>\n<pre>\n{&#34;role&#34;:&#34;user&#34;,&#34;content&#34;:&#34;&lt;b&gt;cut</pre>\n</article>\n",
		},
	},
	{
		name: "valid JSON that is not an object",
		raw:  `[1,2]`,
		want: []string{"unreadable message", "<pre>\n[1,2]</pre>"},
	},
	{
		name: "empty line",
		raw:  ``,
		want: []string{"unreadable message", "<pre>\n</pre>"},
	},
	{
		name: "invalid UTF-8 and control characters",
		raw:  "{\"role\":\"user\",\"content\":[{\"type\":\"wat\",\"v\":\"a\xffb\"},{\"type\":\"text\",\"text\":\"\\u001b[31mred\\u001b[0m\\u0000\\u007f\\ufdd0\"}]}",
		want: []string{"a\uFFFDb", "␛[31mred␛[0m␀␡\uFFFD"},
		not:  []string{"\x1b", "\x00", "\x7f"},
	},
	{
		name: "web links send no referrer, raw HTML is text, remote images are not loaded",
		raw:  `{"role":"assistant","content":"See [docs](https://evil.test/x) and <a href=\"https://evil.test\">this</a> ![i](http://evil.test/i.png)"}`,
		want: []string{`<p>See <a href="https://evil.test/x" rel="noreferrer nofollow">docs</a> and &lt;a href=&quot;https://evil.test&quot;&gt;this&lt;/a&gt; ` +
			`<span class="media">[image: i.png — not loaded; see export.json]</span></p>`},
		not: []string{"<img", `<a href="https://evil.test"`},
	},
}

func TestHTMLShapes(t *testing.T) {
	for _, tt := range htmlShapes {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(tt.raw), Turn: tt.turn}
			got := HTML(m)
			checkHTMLPiece(t, m, got)
			for _, w := range tt.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(string(got), n) {
					t.Errorf("unexpected %q in\n%s", n, got)
				}
			}
		})
	}
}

// TestHTMLHostile puts hostile text in every place a message's text can
// reach and checks that it only ever appears escaped.
func TestHTMLHostile(t *testing.T) {
	h := jsonString(hostile)
	raws := []string{
		`{"role":"user","content":` + h + `,"ts":` + h + `}`,
		`{"role":` + h + `,"content":[{"type":"text","text":` + h + `}]}`,
		`{"role":"system","content":` + h + `}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":` + h + `},{"type":"tool_use","id":` + h + `,"name":` + h + `,"input":{"k":` + h + `}}]}`,
		`{"role":"assistant","content":[{"type":"function_call","name":` + h + `,"call_id":` + h + `,"arguments":` + jsonString(`{"k":`+h+`}`) + `}]}`,
		`{"role":"assistant","content":[{"type":"custom_tool_call","name":"x","input":` + h + `},{"type":"refusal","refusal":` + h + `}]}`,
		`{"role":"assistant","content":[{"type":"reasoning","summary":[{"type":"summary_text","text":` + h + `}],"text":` + h + `}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":` + h + `,"content":` + h + `,"is_error":true}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":` + h + `},` + h + `,{"type":` + h + `}]}]}`,
		`{"role":"user","content":[{"type":"function_call_output","call_id":"c","output":` + h + `}]}`,
		`{"role":"tool","tool_call_id":` + h + `,"content":` + h + `}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":` + h + `,"function":{"name":` + h + `,"arguments":` + h + `}}]}`,
		`{"role":"user","content":[{"type":"image","source":{"type":"url","url":` + h + `}},{"type":"image","source":{"type":"base64","media_type":` + h + `,"data":"AA"}}]}`,
		`{"role":"user","content":[{"type":"input_image","image_url":` + jsonString("https://"+hostile) + `},{"type":"input_file","filename":` + h + `,"file_id":` + h + `}]}`,
		`{"role":"user","content":[{"type":"image_url","image_url":{"url":` + jsonString("data:"+hostile+";base64,AAAA") + `}}]}`,
		`{"role":"user","content":{"future":` + h + `}}`,
		hostile,
		`{"role":"user","content":"` + hostile,
	}
	for i, raw := range raws {
		m := Message{Raw: []byte(raw), Turn: i}
		got := string(HTML(m))
		checkHTMLPiece(t, m, []byte(got))
		if strings.Contains(got, "alert(1)") && !strings.Contains(got, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("message %d: hostile text not escaped:\n%s", i, got)
		}
		if !strings.Contains(got, "alert(1)") {
			t.Errorf("message %d: hostile text not shown at all:\n%s", i, got)
		}
	}
	// The full string, quotes included, as text.
	got := string(HTML(Message{Raw: []byte(`{"role":"user","content":` + h + `}`)}))
	if !strings.Contains(got, `<div class="text"><p class="raw">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;double&quot; 'single' &lt;/article&gt;&lt;/details&gt;</p></div>`) {
		t.Errorf("text not escaped as expected:\n%s", got)
	}
	if want := "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;double&#34; &#39;single&#39; &lt;/article&gt;&lt;/details&gt;"; hostileEscaped != want {
		t.Errorf("escaping changed: %q", hostileEscaped)
	}
}

func TestHTMLHead(t *testing.T) {
	head := string(HTMLHeadFor(Header{Title: "My <session> & \"more\"\nline\xff"}))
	for _, w := range []string{
		"<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
		"<title>My &lt;session&gt; &amp; &#34;more&#34; line\uFFFD</title>",
		"<h1>My &lt;session&gt; &amp; &#34;more&#34; line\uFFFD</h1>",
		"prefers-color-scheme: dark", "max-width: 60rem", "white-space: pre-wrap", "monospace",
	} {
		if !strings.Contains(head, w) {
			t.Errorf("head lacks %q:\n%s", w, head)
		}
	}
	if !strings.HasSuffix(head, "<body>\n<main>\n<h1>My &lt;session&gt; &amp; &#34;more&#34; line\uFFFD</h1>\n") {
		t.Errorf("head does not end by opening <main> and the title:\n%s", head)
	}
	if !utf8.ValidString(head) {
		t.Errorf("head is not valid UTF-8")
	}
	if got, want := string(HTMLTail()), "</main>\n</body>\n</html>\n"; got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
	if string(HTMLHeadFor(Header{Title: "x"})) != string(HTMLHeadFor(Header{Title: "x"})) {
		t.Errorf("head not deterministic")
	}
}

// htmlDocument concatenates a page as the filesystem serves it.
func htmlDocument(title string, ms []Message) string {
	var b strings.Builder
	b.Write(HTMLHeadFor(Header{Title: title}))
	for _, m := range ms {
		b.Write(HTML(m))
	}
	b.Write(HTMLTail())
	return b.String()
}

// checkHTMLDocument asserts what a whole page must satisfy.
func checkHTMLDocument(t *testing.T, doc string) {
	t.Helper()
	if !strings.HasPrefix(doc, "<!doctype html>\n") {
		t.Errorf("document does not start with <!doctype html>: %q", around(doc, 0))
	}
	if !strings.HasSuffix(doc, "</html>\n") {
		t.Errorf("document does not end with </html>: %q", doc[max(0, len(doc)-80):])
	}
	if !utf8.ValidString(doc) {
		t.Errorf("document is not valid UTF-8")
	}
	lower := strings.ToLower(doc)
	// Text cannot hold "<" (checkHTML), so these could only be tags.
	for _, bad := range []string{"<script", "<link", "<iframe", "<object", "<embed", "<svg", "<form"} {
		if strings.Contains(lower, bad) {
			i := strings.Index(lower, bad)
			t.Errorf("document holds %q: %q", bad, around(doc, i))
		}
	}
	if err := checkHTML(doc, true); err != nil {
		t.Errorf("document is not balanced: %v", err)
	}
	// The style sheet loads nothing either.
	if strings.Contains(htmlCSS, "url(") || strings.Contains(htmlCSS, "@import") {
		t.Errorf("style sheet refers to a resource")
	}
}

func TestHTMLDocument(t *testing.T) {
	var ms []Message
	for _, tt := range htmlShapes {
		ms = append(ms, Message{Raw: []byte(tt.raw), Turn: tt.turn})
	}
	doc := htmlDocument("session <1>", ms)
	checkHTMLDocument(t, doc)

	// Pieces concatenate: rendering them in any order and joining gives
	// the same bytes, so a byte range can be served from any piece.
	var b strings.Builder
	b.Write(HTMLHeadFor(Header{Title: "session <1>"}))
	pieces := make([][]byte, len(ms))
	for i := len(ms) - 1; i >= 0; i-- {
		pieces[i] = HTML(ms[i])
	}
	for _, p := range pieces {
		b.Write(p)
	}
	b.Write(HTMLTail())
	if b.String() != doc {
		t.Errorf("pieces rendered out of order differ from the document")
	}
}

// goldenHeader and goldenMessages (Sample) are a small conversation with
// every part a transcript shows, for the golden files of both formats.
var goldenHeader = Header{
	Title: "Session 0a1b2c — fix main.go", Agent: "Claude Code", AgentVersion: "2.1.3",
	Model: "claude-opus-4-5", Cwd: "/home/me/app", GitBranch: "main",
	Created:      time.Date(2026, 11, 22, 11, 25, 0, 0, time.UTC),
	LastActivity: time.Date(2026, 11, 22, 11, 31, 30, 0, time.UTC),
	Branch:       "try", ForkOf: "main", ForkAfterMessage: 9, ForkAfterTurn: 2,
}

var goldenMessages = Sample

// TestHTMLGolden compares a small conversation with testdata/html, which
// can be opened in a browser to see the page. Set SESSFS_UPDATE_GOLDEN=1 to
// rewrite it.
func TestHTMLGolden(t *testing.T) {
	var b strings.Builder
	b.Write(HTMLHeadFor(goldenHeader))
	for _, m := range goldenMessages {
		b.Write(HTML(m))
	}
	b.Write(HTMLTail())
	doc := b.String()
	checkHTMLDocument(t, doc)
	checkGolden(t, filepath.Join("testdata", "html", "sample.html"), doc)
}

// checkGolden compares got with the file golden, or rewrites the file when
// SESSFS_UPDATE_GOLDEN is set.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if os.Getenv("SESSFS_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (set SESSFS_UPDATE_GOLDEN=1 to create it)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (set SESSFS_UPDATE_GOLDEN=1 to update)\n%s", golden, got)
	}
}

// TestHTMLRealData renders real Claude Code and Codex sessions. Each raw
// line is passed as a message as it is (not the store's shape, so most
// render as "message" with no content, but none may break the page); then
// the lines are converted to the store's shape, and each text block must
// show up, escaped.
func TestHTMLRealData(t *testing.T) {
	files := realData(t)
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			lines := htmlReadLines(t, name)
			var raw, conv []Message
			var texts [][]string
			turn := 0
			for _, line := range lines {
				m := Message{Raw: line}
				s, content, isUser := htmlStoredShape(line)
				if isUser {
					turn++
					m.Turn = turn
				}
				raw = append(raw, m)
				if s != nil {
					conv = append(conv, Message{Raw: s, Turn: m.Turn})
					texts = append(texts, htmlTexts(content))
				}
			}
			for _, ms := range [][]Message{raw, conv} {
				for _, m := range ms {
					checkHTMLPiece(t, m, HTML(m))
				}
				checkHTMLDocument(t, htmlDocument(name, ms))
			}
			for i, m := range conv {
				got := string(HTML(m))
				seen := visibleWords(got)
				for _, text := range texts[i] {
					for _, w := range htmlWord.FindAllString(text, -1) {
						if !seen[w] && strings.Trim(w, "0123456789") != "" { // a list's numbers are the list's
							t.Errorf("word %q of %q missing from\n%s", w, text, got)
							break
						}
					}
				}
			}
			t.Logf("%d lines, %d in the store's shape", len(raw), len(conv))
		})
	}
}

// htmlWord is a word of text, as Markdown rendering leaves it.
var htmlWord = regexp.MustCompile(`[\p{L}\p{N}]+`)

// visibleWords returns the words a reader of an HTML piece sees, with the
// attributes of its tags (a link's address, a code block's language): the
// text outside tags, references resolved.
func visibleWords(s string) map[string]bool {
	var b strings.Builder
	for _, tag := range htmlTag.FindAllString(s, -1) {
		b.WriteString(" " + tag[1:len(tag)-1])
	}
	b.WriteString(" " + htmlTag.ReplaceAllString(s, " "))
	words := map[string]bool{}
	for _, w := range htmlWord.FindAllString(html.UnescapeString(b.String()), -1) {
		words[w] = true
	}
	return words
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

func htmlReadLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return lines
}

// htmlStoredShape converts a Claude Code or Codex line to the store's shape
// (nil when the line is not a message), returning its content and whether
// it is a user message with text (which starts a turn here).
func htmlStoredShape(line []byte) (stored []byte, content json.RawMessage, user bool) {
	var rec struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Message   json.RawMessage `json:"message"`
		Payload   json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return nil, nil, false
	}
	role := ""
	switch {
	case rec.Message != nil: // Claude Code
		msg, ok := parseObject(rec.Message)
		if !ok {
			return nil, nil, false
		}
		role, _ = msg.str("role")
		content = msg.get("content")
	case rec.Type == "response_item": // Codex
		p, ok := parseObject(rec.Payload)
		if !ok {
			return nil, nil, false
		}
		switch typ, _ := p.str("type"); typ {
		case "message":
			role, _ = p.str("role")
			content = p.get("content")
		case "function_call_output", "custom_tool_call_output":
			role, content = "user", json.RawMessage("["+string(rec.Payload)+"]")
		default:
			role, content = "assistant", json.RawMessage("["+string(rec.Payload)+"]")
		}
	default:
		return nil, nil, false
	}
	if role == "" || content == nil {
		return nil, nil, false
	}
	r, _ := json.Marshal(role)
	ts, _ := json.Marshal(rec.Timestamp)
	stored = []byte(`{"role":` + string(r) + `,"content":` + string(content) + `,"ts":` + string(ts) + `}`)
	user = role == "user" && !onlyResults(content)
	return stored, content, user
}

// htmlTexts returns the text of every text block in content (and of
// reasoning summaries and thinking), or content itself when a string.
func htmlTexts(content json.RawMessage) []string {
	if s, ok := asString(content); ok {
		return []string{s}
	}
	var out []string
	blocks, _ := asArray(content)
	for _, v := range blocks {
		b, ok := parseObject(v)
		if !ok {
			continue
		}
		switch t, _ := b.str("type"); t {
		case "text", "input_text", "output_text":
			if s, ok := b.str("text"); ok {
				out = append(out, s)
			}
		case "thinking":
			if s, ok := b.str("thinking"); ok {
				out = append(out, s)
			}
		case "reasoning":
			summary, _ := asArray(b.get("summary"))
			for _, s := range summary {
				if o, ok := parseObject(s); ok {
					if text, ok := o.str("text"); ok {
						out = append(out, text)
					}
				}
			}
		}
	}
	return out
}

func TestCheckHTML(t *testing.T) {
	// The checker itself must reject what render must never write.
	bad := []string{
		"<script>x</script>\n", "<div>\n", "</div>\n", "<div><p></div></p>\n",
		"a < b\n", "a > b\n", "a & b\n", "<div class=x></div>\n",
		"<div onclick=\"x\"></div>\n", "<div class=\"https://x\"></div>\n", "<SCRIPT></SCRIPT>\n",
		"<html></html>\n", "<div class=\"a\"class=\"b\"></div>\n",
		"<a href=\"javascript:x\" rel=\"noreferrer nofollow\">x</a>\n", "<a href=\"https://x\">x</a>\n",
		"<img src=\"https://x/i.png\">\n", "<img src=\"x.png\">\n", "<div src=\"data:image/png;base64,AA\"></div>\n",
		"<img src=\"data:image/png;base64,AA\" alt=\"a & b\">\n", "<a rel=\"noreferrer nofollow\">x</a>\n",
	}
	for _, s := range bad {
		if checkHTML(s, false) == nil {
			t.Errorf("checkHTML accepted %q", s)
		}
	}
	good := []string{
		"<div class=\"text\">a &lt; b &amp; c &#39; &#34;</div>\n",
		"<details class=\"x\"><summary>s</summary>\n<pre>\n</pre>\n</details>\n",
		"<p><a href=\"https://x.test/?a=1&amp;b=2\" rel=\"noreferrer nofollow\">x</a><img src=\"data:image/png;base64,AA\" alt=\"&lt;i&gt;\"><br></p>\n",
	}
	for _, s := range good {
		if err := checkHTML(s, false); err != nil {
			t.Errorf("checkHTML rejected %q: %v", s, err)
		}
	}
	if err := checkHTML("<!doctype html>\n<html><head><meta charset=\"utf-8\"><style>a > b {}</style></head></html>\n", true); err != nil {
		t.Errorf("checkHTML rejected a document: %v", err)
	}
}

func FuzzHTML(f *testing.F) {
	for _, tt := range htmlShapes {
		if len(tt.raw) < 4096 {
			f.Add([]byte(tt.raw), tt.turn)
		}
	}
	seeds := []string{
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"<script>"}],"is_error":true}]}`,
		`{"role":"assistant","content":[{"type":"function_call","name":"f","call_id":"c","arguments":"{\"a\":\"\\u003cscript\\u003e\"}"}]}`,
		`{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"type":"image","source":{"type":"base64","media_type":"<x>","data":"AA"}}]}`,
		`{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"</pre></details>"}]}`,
		`{"role":"system","content":"</details></article><script>"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"n","arguments":"[]"}}]}`,
		"{\"role\":\"user\",\"content\":\"\xff\xfe\\u0000\\u001b\"}",
		`<ScRiPt>`,
		`{"role":"assistant","content":"# h\n\n| a |\n|--|\n| <b> |\n\n[x](javascript:alert(1)) ![i](https://e.test/i.png) <img src=x onerror=alert(1)>"}`,
		`{"role":"assistant","content":"<details><summary>x</summary>\n\n</article>\n\n<!-- c"}`,
		`{"role":"user","context":"hook","content":"<script>"}`,
		`{"role":"system","context":"compaction","content":[{"type":"text","text":"- [ ] a\n- [x] b"}]}`,
		`{"role":"assistant","content":[{"type":"function_call","name":"update_plan","call_id":"c","arguments":"{\"plan\":[{\"step\":\"<s>\",\"status\":\"in_progress\"}]}"}]}`,
		`{"role":"user","content":[[[[[[[[[[[[[[[[["","","","",""]]]]]]]]]]]]]]]]]}`,
		`{"role":"user","content":"> > > > > > > > > > > > > > > > > > > > > > > > > > > > > > > >\n\n| a | b | c |\n|-|-|-|\n|\n|\n*a_ *a_ ![a]( [a](b"}`,
		``,
	}
	for i, s := range seeds {
		f.Add([]byte(s), i%3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, turn int) {
		m := Message{Raw: raw, Turn: turn}
		out := HTML(m)
		checkHTMLPiece(t, m, out)
		checkLinear(t, "HTML", raw, out)
	})
}
