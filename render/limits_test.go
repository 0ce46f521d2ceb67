package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/realdata"
)

// deep is JSON nested n deep: arrays, or objects {"a":…} when obj is set.
func deep(n int, obj bool) string {
	if obj {
		return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
	}
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}

// repeatJoin is n copies of s separated by sep.
func repeatJoin(s, sep string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+sep, n), sep)
}

// textMsg is a user message whose content is s.
func textMsg(s string) string {
	return `{"role":"user","content":` + jsonString(s) + `}`
}

// markdownBombs are texts that goldmark (v1.8) takes seconds over, or
// turns into far more HTML than they are, each under maxMarkdown.
var markdownBombs = map[string]string{
	"mismatched emphasis":   strings.Repeat("*a_ ", 50000),
	"emphasis, 3 rule":      "a**b" + strings.Repeat("c* ", 60000),
	"strikethrough":         strings.Repeat("~a_ ", 50000),
	"unclosed images":       strings.Repeat("![a](", 50000),
	"unclosed links":        strings.Repeat("[a](b", 40000),
	"nested brackets":       strings.Repeat("[", 100000) + "a" + strings.Repeat("]", 100000),
	"link definitions":      strings.Repeat("[a]:\nb\n", 37000),
	"nested lists":          strings.Repeat("- ", 100000) + "a",
	"nested ordered lists":  strings.Repeat("1. ", 60000) + "a",
	"nested quotes":         strings.Repeat("> ", 100000) + "a",
	"deep list, lazy lines": strings.Repeat("- ", 500) + "a\n" + strings.Repeat("b\n", 100000),
	"lists nested by indent": func() string {
		var b strings.Builder
		for i := 0; b.Len() < 250000; i++ {
			b.WriteString(strings.Repeat(" ", 2*i) + "- a\n")
		}
		return b.String()
	}(),
	"padded table":    "|" + strings.Repeat("a|", 5000) + "\n|" + strings.Repeat("-|", 5000) + "\n" + strings.Repeat("b\n", 50000),
	"quotes per line": strings.Repeat(strings.Repeat(">", 32)+"\n\n", 7000),
}

// bombs are messages built to be expensive to render, as a red team wrote
// them and more: each must render in every format within bounded size and
// time.
func bombs() map[string]string {
	image := func(n int) string {
		return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + strings.Repeat("A", n) + `"}}`
	}
	m := map[string]string{
		// The red team's: 18 KB that indented to 162 MB, and a tool call's
		// input 3,000 deep.
		"nested arrays":    `{"role":"user","content":` + deep(9000, false) + `}`,
		"deep tool input":  `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":` + deep(3000, true) + `}]}`,
		"deep arguments":   `{"role":"assistant","content":[{"type":"function_call","call_id":"c","name":"f","arguments":` + jsonString(deep(9000, true)) + `}]}`,
		"deep tool output": `{"role":"tool","tool_call_id":"c","content":` + deep(9000, false) + `}`,
		"16 deep and wide": `{"role":"user","content":[` + deep(15, false)[:15] + repeatJoin("[0]", ",", 300000) + deep(15, false)[15:] + `]}`,
		"long text":        textMsg(strings.Repeat("word ", 400000)),
		"long output":      `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":` + jsonString(strings.Repeat("line\n", 300000)) + `}]}`,
		"many blocks":      `{"role":"assistant","content":[` + repeatJoin(`{"type":"text","text":"x"}`, ",", 200000) + `]}`,
		"many empty calls": `{"role":"assistant","content":[` + repeatJoin(`{"type":"tool_use"}`, ",", 200000) + `]}`,
		"many items":       `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[` + repeatJoin("0", ",", 300000) + `]}]}`,
		"many chat calls":  `{"role":"assistant","content":null,"tool_calls":[` + repeatJoin(`{"id":"c","function":{"name":"f","arguments":"{}"}}`, ",", 100000) + `]}`,
		"big to-do list":   `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[` + repeatJoin(`{"content":"step","status":"pending"}`, ",", 40000) + `]}}]}`,
		"long labels": `{"role":` + jsonString(strings.Repeat("r", 1<<20)) + `,"ts":` + jsonString(strings.Repeat("t", 1<<20)) +
			`,"content":[{"type":"tool_use","id":` + jsonString(strings.Repeat("i", 1<<20)) + `,"name":` + jsonString(strings.Repeat("n", 1<<20)) + `,"input":{}}]}`,
		"long url":      `{"role":"user","content":[{"type":"image","source":{"type":"url","url":` + jsonString("https://x/"+strings.Repeat("a", 2<<20)) + `}}]}`,
		"many images":   `{"role":"user","content":[` + repeatJoin(image(maxInlineImage/4), ",", 18) + `]}`,
		"unreadable":    `{"role":` + strings.Repeat("x", 2<<20),
		"dense secrets": textMsg(strings.Repeat("token: ", 150000)),
		"many markdown texts": `{"role":"user","content":[` +
			repeatJoin(jsonString(strings.Repeat("- a\n", 60000)), ",", 6) + `]}`,
	}
	for name, s := range markdownBombs {
		m["markdown: "+name] = textMsg(s)
	}
	return m
}

// The size a piece may reach (limits.go): a few times maxShown, plus the
// images transcript.html draws.
const (
	maxMarkdownPiece = 4 * maxShown
	maxHTMLPiece     = 8*maxShown + maxDrawn
)

// timed runs f and fails the test when it takes more than 4 s (with the
// race detector, which slows Go code 5 to 10 times, 20 s): no message may
// cost more to render, however it is built. The slowest bomb renders in
// about 0.1 s on an idle 2-core machine; a cost that grows with the square
// of a bomb's size takes minutes, so the bound catches it and leaves room
// for a machine busy with other work (1 s once failed on a loaded one).
func timed(t *testing.T, what string, f func() []byte) []byte {
	t.Helper()
	limit := 4 * time.Second
	if raceDetector {
		limit *= 5
	}
	start := time.Now()
	out := f()
	if d := time.Since(start); d > limit {
		t.Errorf("%s took %v, more than %v (%d bytes)", what, d, limit, len(out))
	}
	return out
}

func TestBombs(t *testing.T) {
	for name, raw := range bombs() {
		t.Run(name, func(t *testing.T) {
			m := Message{Raw: []byte(raw), Turn: 1}
			md := timed(t, "Markdown", func() []byte { return Markdown(m) })
			h := timed(t, "HTML", func() []byte { return HTML(m) })
			red := timed(t, "Redact(Markdown)", func() []byte { return Redact(md) })
			t.Logf("%d bytes: Markdown %d, HTML %d, redacted %d", len(raw), len(md), len(h), len(red))
			if len(md) > maxMarkdownPiece || len(red) > maxMarkdownPiece {
				t.Errorf("Markdown is %d bytes (redacted %d), more than %d", len(md), len(red), maxMarkdownPiece)
			}
			if len(h) > maxHTMLPiece {
				t.Errorf("HTML is %d bytes, more than %d", len(h), maxHTMLPiece)
			}
			checkPiece(t, m, md)
			checkHTMLPiece(t, m, h)
		})
	}
}

// A piece that does not show all of a message says so, how much is left
// out, and where the whole message is, in every format.
func TestCutMarkers(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"text", textMsg(strings.Repeat("a", maxShown+5000)), "cut: 4.9 KB more"},
		{"output", `{"role":"tool","content":` + jsonString(strings.Repeat("a", 3*maxShown)) + `}`, "cut: 2.0 MB more"},
		{"parts", `{"role":"user","content":[` + repeatJoin(`"x"`, ",", maxParts+2) + `]}`, "cut: 2 more parts, 6 bytes"},
		{"one part", `{"role":"user","content":[` + repeatJoin(`"x"`, ",", maxParts+1) + `]}`, "cut: 1 more part, 3 bytes"},
		{"JSON", `{"role":"user","content":[` + jsonString("x") + `,[` + repeatJoin(`"a"`, ",", maxShown) + `]]}`, "MB more"},
		{"unreadable", `{` + strings.Repeat("a", maxShown), "cut: 1 byte more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(tt.raw)}
			for format, out := range map[string][]byte{"Markdown": Markdown(m), "HTML": HTML(m)} {
				s := string(out)
				if !strings.Contains(s, tt.want) || !strings.Contains(s, "the whole message is in messages.jsonl and export.json") {
					t.Errorf("%s: no marker %q … in %d bytes ending %q", format, tt.want, len(s), s[max(0, len(s)-300):])
				}
				if strings.Count(s, "cut: ") != 1 {
					t.Errorf("%s: %d markers, want 1", format, strings.Count(s, "cut: "))
				}
			}
		})
	}
	// Below the bounds nothing is cut.
	for _, raw := range []string{
		textMsg(strings.Repeat("a", maxShown)),
		`{"role":"user","content":[` + repeatJoin(`"x"`, ",", maxParts) + `]}`,
	} {
		m := Message{Raw: []byte(raw)}
		if md, h := Markdown(m), HTML(m); bytes.Contains(md, []byte("cut: ")) || bytes.Contains(h, []byte("cut: ")) {
			t.Errorf("a message within the bounds is cut: %.100s", raw)
		}
	}
}

// Texts, outputs and JSON are cut at the same place in every format: the
// bound counts what is shown, before HTML escapes.
func TestCutSamePlace(t *testing.T) {
	// HTML escapes make "<" four bytes; the cut falls inside the "é".
	text := strings.Repeat("<", maxShown-1) + "é" + strings.Repeat("b", 500)
	m := Message{Raw: []byte(textMsg(text))}
	md, h := string(Markdown(m)), string(HTML(m))
	const want = "cut: 502 bytes more" // the whole é is cut, not half of it
	if !strings.Contains(md, want) || !strings.Contains(h, want) {
		t.Errorf("want %q in both: Markdown ends %q, HTML ends %q", want, md[len(md)-200:], h[len(h)-200:])
	}
}

func TestJSONDisplay(t *testing.T) {
	indented := func(v string) string {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(v), "", "  "); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name, v string
		room    int
		want    string
	}{
		{"shallow", `{"a":[1,{"b":"<"}]}`, maxShown, "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"<\"\n    }\n  ]\n}"},
		{"16 deep", deep(16, false), maxShown, indented(deep(16, false))},
		{"17 deep", deep(17, false), maxShown, deep(17, false)},
		{"objects 17 deep", deep(17, true), maxShown, deep(17, true)},
		{"no room to indent", `{"a":1}`, 10, `{"a":1}`},
		{"room to indent", `{"a":1}`, 14, "{\n  \"a\": 1\n}"},
		{"brackets in strings", `["[[[[[[[[[[[[[[[[[["]`, maxShown, "[\n  \"[[[[[[[[[[[[[[[[[[\"\n]"},
	} {
		if got := jsonDisplay([]byte(tt.v), tt.room); got != tt.want {
			t.Errorf("%s: jsonDisplay(%.40s…, %d) = %q, want %q", tt.name, tt.v, tt.room, got, tt.want)
		}
	}
}

// indentedSize is never less than what json.Indent writes, or a value that
// fits would be shown indented past the piece's bound; nor less than the
// value itself, or jsonDisplay could not show a value longer than its room
// as written without counting.
func TestIndentedSize(t *testing.T) {
	values := []string{`{}`, `[]`, `[[]]`, `{"a":{}}`, `{"a":1,"b":[1,2,{"c":null}]}`, `  [ 1 , 2 ]  `, `"x"`, `1`,
		`[{"a":"\"}"},{}]`, deep(16, true), deep(16, false), `{"k":[` + repeatJoin(`[0,"x",{"y":[]}]`, ",", 100) + `]}`}
	eachLine(t, "codex", func(line []byte) { values = append(values, string(line)) })
	eachLine(t, "claude-code", func(line []byte) { values = append(values, string(line)) })
	for _, v := range values {
		var b bytes.Buffer
		if json.Indent(&b, []byte(v), "", "  ") != nil {
			continue
		}
		if n, ok := indentedSize([]byte(v)); ok && n < b.Len() {
			t.Errorf("indentedSize(%.60s) = %d, but it indents to %d bytes", v, n, b.Len())
		}
		if n, ok := indentedSize([]byte(v)); ok && n < len(v) {
			t.Errorf("indentedSize(%.60s) = %d, less than its %d bytes", v, n, len(v))
		}
	}
}

// Labels (a role, a tool's name, a call id, a time) are cut at maxLabel
// characters.
func TestLabelsClipped(t *testing.T) {
	long := strings.Repeat("é", maxLabel+10)
	raw := `{"role":` + jsonString(long) + `,"ts":` + jsonString(long) +
		`,"content":[{"type":"tool_use","id":` + jsonString(long) + `,"name":` + jsonString(long) + `,"input":{}}]}`
	m := Message{Raw: []byte(raw)}
	clipped := strings.Repeat("é", maxLabel) + "…"
	for format, out := range map[string][]byte{"Markdown": Markdown(m), "HTML": HTML(m)} {
		if n := strings.Count(string(out), clipped); n < 4 {
			t.Errorf("%s: %d values cut at %d characters, want 4", format, n, maxLabel)
		}
		if strings.Contains(string(out), clipped[:len(clipped)-len("…")]+"é") {
			t.Errorf("%s: a value longer than %d characters is shown", format, maxLabel)
		}
	}
}

// transcript.html draws the images of a message while they total at most
// maxDrawn, and describes the rest.
func TestImagesDrawnBudget(t *testing.T) {
	data := strings.Repeat("A", maxInlineImage)
	img := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}`
	n := maxDrawn/maxInlineImage + 1
	out := string(HTML(Message{Raw: []byte(`{"role":"user","content":[` + repeatJoin(img, ",", n) + `]}`)}))
	if got := strings.Count(out, `<img class="media"`); got != n-1 {
		t.Errorf("%d images drawn, want %d", got, n-1)
	}
	if !strings.Contains(out, "[image: image/png, 1.5 MB — not shown; see export.json]") {
		t.Errorf("the image over the bound is not described")
	}
}

// Real Markdown, long documents included, is never too costly to render:
// the bounds of markdown_cost.go are far above it. The goldmark bombs are.
func TestMarkdownCostly(t *testing.T) {
	docs := []string{"../README.md", filepath.Join(realdata.Shared(), "DESIGN.md"), "testdata/markdown/sample.md"}
	// Long real documents, where this machine has them.
	more, _ := filepath.Glob("/usr/share/doc/nodejs/api/*.md")
	docs = append(docs, more...)
	n := 0
	for _, p := range docs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n++
		s := string(b[:min(len(b), maxMarkdown)])
		if markdownCostly(s) {
			t.Errorf("%s is too costly to render as Markdown", p)
		}
	}
	if n < 2 {
		t.Fatalf("only %d documents read", n)
	}
	for name, s := range markdownBombs {
		if !markdownCostly(s) {
			start := time.Now()
			out := htmlText(s, true)
			t.Logf("%s: not costly; rendered %d bytes as %d in %v", name, len(s), len(out), time.Since(start))
			if !strings.Contains(out, `class="text plain"`) {
				t.Errorf("%s: rendered as Markdown", name)
			}
		}
	}
	for _, s := range []string{
		"| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |",
		"> a\n> > b\n\n- a\n  - b\n    1. c",
		"**bold** _it_ ~~del~~ [link](https://x) ![i](data:image/png;base64,AA) `code` <b>",
	} {
		if markdownCostly(s) {
			t.Errorf("costly: %q", s)
		}
	}
}

// The output of any message is at most linear in it (FuzzMarkdown and
// FuzzHTML hold the fuzzer's inputs to this).
func checkLinear(t *testing.T, format string, raw, out []byte) {
	t.Helper()
	if limit := 64*len(raw) + 4096; len(out) > limit {
		t.Errorf("%s of %d bytes is %d bytes, more than %d: %q", format, len(raw), len(out), limit, raw)
	}
}

func TestCheckLinear(t *testing.T) {
	for _, raw := range []string{
		`{"role":"user","content":` + deep(16, false) + `}`,
		`{"role":"user","content":[` + deep(15, false)[:15] + repeatJoin("0", ",", 1000) + deep(15, false)[15:] + `]}`,
		`{"role":"user","content":[` + repeatJoin("{}", ",", 1000) + `]}`,
		textMsg(strings.Repeat(strings.Repeat(">", 32)+"\n\n", 100)),
		textMsg("|" + strings.Repeat("a|", 40) + "\n|" + strings.Repeat("-|", 40) + "\n" + strings.Repeat("b\n", 40)),
	} {
		checkLinear(t, "Markdown", []byte(raw), Markdown(Message{Raw: []byte(raw)}))
		checkLinear(t, "HTML", []byte(raw), HTML(Message{Raw: []byte(raw)}))
	}
}

func ExampleMarkdown_deepJSON() {
	m := Message{Raw: []byte(`{"role":"user","content":` + deep(40, false) + `}`)}
	fmt.Print(string(Markdown(m)))
	// Output:
	// **user**
	//
	// ```json
	// [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
	// ```
}
