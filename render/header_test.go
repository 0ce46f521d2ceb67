package render

import (
	"strings"
	"testing"
	"time"
)

func TestMarkdownHead(t *testing.T) {
	got := string(MarkdownHead(goldenHeader))
	want := "# Session 0a1b2c — fix main.go\n\n" +
		"- agent: Claude Code 2.1.3\n" +
		"- model: claude-opus-4-5\n" +
		"- cwd: `/home/me/app`\n" +
		"- git branch: `main`\n" +
		"- created: 2026-11-22 11:25 UTC\n" +
		"- last activity: 2026-11-22 11:31 UTC\n" +
		"- branch: `try`\n" +
		"- forked from: `main` after message 9 (turn 2)\n\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarkdownHeadOmitsEmptyFields(t *testing.T) {
	tests := []struct {
		h    Header
		want string
	}{
		{Header{}, "# Untitled session\n\n"},
		{Header{Title: "t", Branch: "main"}, "# t\n\n- branch: `main`\n\n"},
		{Header{Title: "t", AgentVersion: "0.1"}, "# t\n\n- agent: version 0.1\n\n"},
		{Header{Title: "t", ForkOf: "main", ForkAfterTurn: 3}, "# t\n\n- forked from: `main` after turn 3\n\n"},
		{Header{Title: "t", ForkOf: "main"}, "# t\n\n- forked from: `main`\n\n"},
		// What a session's values hold cannot break the Markdown.
		{Header{Title: "# *x*\n[y](z)", Model: "m_1*", Cwd: "/a`b", Branch: "x\ny"},
			"# \\# \\*x\\* \\[y\\](z)\n\n- model: m\\_1\\*\n- cwd: ``/a`b``\n- branch: `x y`\n\n"},
	}
	for _, tt := range tests {
		if got := string(MarkdownHead(tt.h)); got != tt.want {
			t.Errorf("MarkdownHead(%+v)\n got %q\nwant %q", tt.h, got, tt.want)
		}
	}
}

// The kernel caches a transcript's first page: the header keeps its length
// as the session's last activity moves on, and shows times in UTC.
func TestHeadLengthStable(t *testing.T) {
	h := goldenHeader
	md, page := len(MarkdownHead(h)), len(HTMLHeadFor(h))
	for _, last := range []time.Time{
		time.Date(2026, 11, 22, 11, 31, 59, 999, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 0, 0, time.FixedZone("CET", 3600)),
		time.Date(2031, 12, 31, 23, 59, 0, 0, time.UTC),
	} {
		h.LastActivity = last
		if n := len(MarkdownHead(h)); n != md {
			t.Errorf("MarkdownHead is %d bytes with last activity %v, %d before", n, last, md)
		}
		if n := len(HTMLHeadFor(h)); n != page {
			t.Errorf("HTMLHeadFor is %d bytes with last activity %v, %d before", n, last, page)
		}
	}
	h.LastActivity = time.Date(2027, 1, 1, 0, 30, 0, 0, time.FixedZone("CET", 3600))
	if got := string(MarkdownHead(h)); !strings.Contains(got, "- last activity: 2026-12-31 23:30 UTC\n") {
		t.Errorf("last activity not in UTC:\n%s", got)
	}
}

func TestHTMLHeadFor(t *testing.T) {
	h := goldenHeader
	h.Title = "A <b> & \"c\""
	h.Cwd = "/x/<y>"
	head := string(HTMLHeadFor(h))
	for _, w := range []string{
		"<title>A &lt;b&gt; &amp; &#34;c&#34;</title>",
		"<h1>A &lt;b&gt; &amp; &#34;c&#34;</h1>\n<dl class=\"session\">\n",
		"<dt>agent</dt><dd>Claude Code 2.1.3</dd>\n",
		"<dt>cwd</dt><dd><code>/x/&lt;y&gt;</code></dd>\n",
		"<dt>last activity</dt><dd>2026-11-22 11:31 UTC</dd>\n",
		"<dt>forked from</dt><dd><code>main</code> after message 9 (turn 2)</dd>\n</dl>\n",
	} {
		if !strings.Contains(head, w) {
			t.Errorf("head lacks %q:\n%s", w, head)
		}
	}
	if err := checkHTML(head+string(HTMLTail()), true); err != nil {
		t.Errorf("head is not balanced: %v", err)
	}
	// A title alone is the page it was before headers.
	if got := string(HTMLHeadFor(Header{Title: "x"})); strings.Contains(got, "<dl") || !strings.HasSuffix(got, "<h1>x</h1>\n") {
		t.Errorf("HTMLHeadFor(Header{Title: title}) has a header list:\n%s", got)
	}
}

// A session with no title is called the same in every format, and neither
// shows an empty heading.
func TestHeadUntitled(t *testing.T) {
	if got := string(MarkdownHead(Header{})); !strings.HasPrefix(got, "# Untitled session\n") {
		t.Errorf("MarkdownHead(Header{}) = %q", got)
	}
	page := string(HTMLHeadFor(Header{}))
	for _, w := range []string{"<title>Untitled session</title>\n", "<h1>Untitled session</h1>\n"} {
		if !strings.Contains(page, w) {
			t.Errorf("HTMLHeadFor(Header{}) lacks %q:\n%s", w, page)
		}
	}
}
