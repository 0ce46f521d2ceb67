package filestore

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sessfs/sessfs/backing"
)

func title(t *testing.T, s *Session) string {
	t.Helper()
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	return m.Title
}

// A session made without a title takes one from its first prompt, as an
// import does, until the user sets one; context and replies do not give
// one, a later prompt does not change it, and a title the user cleared
// stays clear.
func TestTitleFromFirstPrompt(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "s")
	if err := s.Append("", [][]byte{msg("system", "be brief"), ctx("user", "environment", "<env/>")}); err != nil {
		t.Fatal(err)
	}
	if got := title(t, s); got != "" {
		t.Fatalf("title from context: %q", got)
	}
	if _, err := s.Fork("", backing.Head, "side"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("side", [][]byte{msg("user", "a prompt in a fork")}); err != nil {
		t.Fatal(err)
	}
	if got := title(t, s); got != "" {
		t.Fatalf("title from a fork's prompt: %q", got)
	}
	if err := s.Append("", [][]byte{[]byte(`{"role":"user","content":[{"type":"text","text":"How do I   fork\na session?"}]}`), msg("user", "second")}); err != nil {
		t.Fatal(err)
	}
	if got := title(t, s); got != "How do I fork a session?" {
		t.Fatalf("title %q, want the first prompt's text", got)
	}
	if err := s.SetTitle(""); err != nil {
		t.Fatal(err)
	}
	// Another process, which has not seen the title yet, leaves it too.
	s2 := reopen(t, st, "s")
	if err := s2.Append("", [][]byte{msg("user", "third")}); err != nil {
		t.Fatal(err)
	}
	if got := title(t, s2); got != "" {
		t.Fatalf("a cleared title became %q", got)
	}
}

func TestTitleOf(t *testing.T) {
	long := strings.Repeat("word ", 30) // 150 runes
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"short", "Fix the parser", 80, "Fix the parser"},
		{"empty", "", 80, ""},
		{"whitespace collapses", "  Fix\nthe\t\tparser \n", 80, "Fix the parser"},
		{"exactly max", "abcde fghij", 11, "abcde fghij"},
		{"cut at a word boundary", "hello world again", 14, "hello world…"},
		{"boundary right after the kept part", "hello world again", 12, "hello world…"},
		{"cut inside the first word", "abcdefghijklmnop", 8, "abcdefg…"},
		{"separator before the cut goes", "one, two three", 8, "one…"},
		{"runes, not bytes", "ééééé ééééé ééééé", 12, "ééééé ééééé…"},
		{"long text", long, 80, strings.TrimSpace(strings.Repeat("word ", 16)) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := backing.TitleOf(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("TitleOf(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			if n := utf8.RuneCountInString(got); n > tc.max {
				t.Errorf("%d runes, more than %d", n, tc.max)
			}
		})
	}
}

// FirstText is the one reading of a message's text, for titles and the
// importers alike: blank blocks and tool results are passed over.
func TestFirstText(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{`"  hello\n"`, "hello"},
		{`[{"type":"text","text":"  "},{"type":"text","text":"second"}]`, "second"},
		{`[{"type":"tool_result","content":"x"},{"type":"input_text","text":"codex"}]`, "codex"},
		{`[{"type":"output_text","text":"out"}]`, "out"},
		{`[{"type":"image"}]`, ""},
		{`{"text":"not an array"}`, ""},
		{`42`, ""},
		{`"a\"b"`, `a"b`},
	} {
		if got := backing.FirstText(json.RawMessage(c.content)); got != c.want {
			t.Errorf("FirstText(%s) = %q, want %q", c.content, got, c.want)
		}
	}
}
