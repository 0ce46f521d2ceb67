package render

import (
	"fmt"
	"strings"
	"testing"
)

// TestHTMLMarkdown checks how transcript.html renders the Markdown in a
// message's text, and that nothing in it can run, load or send anything.
func TestHTMLMarkdown(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // substrings of the rendered text
		not  []string
	}{
		{
			name: "headings sit below the page's title and turns",
			text: "# One\n## Two\n### Three\n#### Four",
			want: []string{"<h3>One</h3>", "<h4>Two</h4>", "<h5>Three</h5>", "<h6>Four</h6>"},
			not:  []string{"<h1>", "<h2>", " id="},
		},
		{
			name: "emphasis, lists, strikethrough, line breaks",
			text: "*a* **b** ~~c~~\nnext\n\n- x\n- y\n\n3. z",
			want: []string{"<em>a</em> <strong>b</strong> <del>c</del><br>\nnext", "<ul>\n<li>x</li>\n<li>y</li>\n</ul>", `<ol start="3">`},
		},
		{
			name: "GitHub tables",
			text: "| a | b |\n|:--|--:|\n| 1 | <2> |",
			want: []string{"<table>\n<thead>\n<tr>\n<th align=\"left\">a</th>", "<td align=\"right\">&lt;2&gt;</td>"},
		},
		{
			name: "task lists",
			text: "- [x] done\n- [ ] not",
			want: []string{`<li><input checked="" disabled="" type="checkbox"> done</li>`},
		},
		{
			name: "fenced code keeps its text",
			text: "```go\nif a < b && c {\n```",
			want: []string{"<pre><code class=\"language-go\">if a &lt; b &amp;&amp; c {\n</code></pre>"},
		},
		{
			name: "script is text",
			text: "<script>alert(1)</script>\n\nx <script>alert(2)</script>",
			want: []string{`<p class="raw">&lt;script&gt;alert(1)&lt;/script&gt;</p>`, "x &lt;script&gt;alert(2)&lt;/script&gt;"},
			not:  []string{"<script"},
		},
		{
			name: "img with onerror is text",
			text: "<img src=x onerror=alert(1)>\n\nand <img src=\"y\" onerror=\"alert(2)\">",
			want: []string{"&lt;img src=x onerror=alert(1)&gt;", "&lt;img src=&quot;y&quot; onerror=&quot;alert(2)&quot;&gt;"},
			not:  []string{"<img", "onerror=\""},
		},
		{
			name: "other raw HTML is text, comments too",
			text: "<div onclick=\"x()\">hi</div>\n\n<!-- note --> <iframe src=\"https://evil.test\"></iframe> <a href=\"https://evil.test\">a</a>",
			want: []string{"&lt;div onclick=&quot;x()&quot;&gt;hi&lt;/div&gt;", "&lt;!-- note --&gt;", "&lt;iframe"},
			not:  []string{"<div onclick", "<iframe", "<!--", `<a href="https://evil.test">`},
		},
		{
			name: "javascript:, data: and file: links are their text",
			text: "[a](javascript:alert(1)) [b](JAVASCRIPT:alert(1)) [c](data:text/html,<script>x</script>) [d](file:///etc/passwd) [e](vbscript:x)",
			want: []string{"<p>a b c d e</p>"},
			not:  []string{"<a ", "javascript", "JAVASCRIPT", "data:", "file:"},
		},
		{
			name: "an autolink to a script is text",
			text: "<javascript:alert(1)> <file:///etc/passwd>",
			want: []string{"javascript:alert(1) file:///etc/passwd"},
			not:  []string{"<a "},
		},
		{
			name: "relative links are their text",
			text: "See [main.go](src/main.go) and [docs](/docs/x.md).",
			want: []string{"<p>See main.go and docs.</p>"},
			not:  []string{"<a "},
		},
		{
			name: "web and mail links send no referrer",
			text: "[go](https://go.dev/doc \"Go\") <https://x.test/a?b=1&c=2> www.example.com me@example.com <mailto:me@example.com>",
			want: []string{
				`<a href="https://go.dev/doc" title="Go" rel="noreferrer nofollow">go</a>`,
				`<a href="https://x.test/a?b=1&amp;c=2" rel="noreferrer nofollow">https://x.test/a?b=1&amp;c=2</a>`,
				`<a href="http://www.example.com" rel="noreferrer nofollow">www.example.com</a>`,
				`<a href="mailto:me@example.com" rel="noreferrer nofollow">me@example.com</a>`,
			},
		},
		{
			name: "remote and local images are placeholders naming the file",
			text: "![shot](https://evil.test/img/shot.png?x=1) ![](./local/pic.jpg) ![none]()",
			want: []string{
				`<span class="media">[image: shot.png — not loaded; see export.json]</span>`,
				`<span class="media">[image: pic.jpg — not loaded; see export.json]</span>`,
			},
			not: []string{"<img", "evil.test"},
		},
		{
			name: "links to remote images are placeholders too",
			text: "[see](https://evil.test/a.PNG) https://evil.test/b.gif",
			want: []string{`[image: a.PNG — not loaded; see export.json]`, `[image: b.gif — not loaded; see export.json]`},
			not:  []string{"<a ", "<img"},
		},
		{
			name: "a small data: image in text is drawn",
			text: "![chart](data:image/png;base64," + testPNG + ")",
			want: []string{`<img src="data:image/png;base64,` + testPNG + `" alt="chart" class="media">`},
		},
		{
			name: "a data: image of a type not drawn is a placeholder",
			text: "![a](data:image/svg+xml;base64,PHN2Zz4=) ![b](data:image/png,raw)",
			want: []string{"[image: image/svg+xml, 5 bytes — not loaded; see export.json]", "[image: image/png, 3 bytes — not loaded; see export.json]"},
			not:  []string{"<img", "PHN2"},
		},
		{
			name: "control characters and invalid UTF-8 are visible",
			text: "a\x00b\x1b[31mc\xff",
			want: []string{"a␀b␛[31mc\uFFFD"},
		},
		{
			name: "entities resolve to text",
			text: "&copy; &lt;b&gt; &#0; &amp;",
			want: []string{"© &lt;b&gt; \uFFFD &amp;"},
			not:  []string{"<b>"},
		},
		{
			name: "text past the bound is shown as written",
			text: strings.Repeat("# x <b>\n", maxMarkdown/8+1),
			want: []string{`<div class="text plain"># x &lt;b&gt;`},
			not:  []string{"<h3>", "<b>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(`{"role":"assistant","content":` + jsonString(tt.text) + `}`)}
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

// Images in a message's blocks are drawn when small, in both shapes.
func TestHTMLInlineImages(t *testing.T) {
	m := Message{Raw: []byte(`{"role":"user","content":[` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + testPNG + `"}},` +
		`{"type":"input_image","image_url":"data:image/png;base64,` + testPNG + `"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"not base64!"}},` +
		`{"type":"image","source":{"type":"base64","media_type":"text/html","data":"PHNjcmlwdD4="}}]}`)}
	got := string(HTML(m))
	checkHTMLPiece(t, m, []byte(got))
	img := `<img class="media" src="data:image/png;base64,` + testPNG + `" alt="image: image/png, 93 bytes">`
	if strings.Count(got, img) != 2 {
		t.Errorf("want the image drawn twice:\n%s", got)
	}
	for _, w := range []string{"[image: image/png, 8 bytes — not shown; see export.json]", "[image: text/html, 8 bytes — not shown; see export.json]"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in\n%s", w, got)
		}
	}
}

// Pieces are rendered by many readers at once: the one goldmark set-up
// must give each the same bytes (run with -race).
func TestHTMLMarkdownConcurrent(t *testing.T) {
	var want [][]byte
	for _, m := range goldenMessages {
		want = append(want, HTML(m))
	}
	done := make(chan error)
	for range 4 {
		go func() {
			for range 20 {
				for i, m := range goldenMessages {
					if got := HTML(m); string(got) != string(want[i]) {
						done <- fmt.Errorf("message %d rendered differently:\n%s\n---\n%s", i, got, want[i])
						return
					}
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
