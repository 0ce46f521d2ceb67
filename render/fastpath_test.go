package render

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// Tests holding the fast paths to the general code they stand for, or
// stood for: each must give the same bytes.

// replacerCR is what loneCR did by a strings.Replacer.
var replacerCR = strings.NewReplacer("\r\n", "\r\n", "\r", "\n")

func FuzzLoneCR(f *testing.F) {
	for _, s := range []string{"", "a", "\r", "\n", "\r\n", "\r\r\n", "a\rb", "a\r\nb\rc", "\n\r", "x\r\n\r\n\r", "\r\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := loneCR(s), replacerCR.Replace(s); got != want {
			t.Fatalf("loneCR(%q) = %q, want %q", s, got, want)
		}
	})
}

// trimTextCutset is what trimText did with cutsets.
func trimTextCutset(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexAny(s[:len(s)-len(strings.TrimLeft(s, " \t\r\n"))], "\r\n"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func FuzzTrimText(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a ", "\n\n  a\n", "\r\n\ta\tb \r", " \n \r x", "\n\n", "a\n\n b\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := trimText(s), trimTextCutset(s); got != want {
			t.Fatalf("trimText(%q) = %q, want %q", s, got, want)
		}
		if got := trimText([]byte(s)); string(got) != trimText(s) {
			t.Fatalf("trimText([]byte(%q)) = %q, want %q", s, got, trimText(s))
		}
	})
}

func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "abcdefgh\xff", "abcdefghé", "\xe2\x82", "abcdefgh\xe2\x82\xac"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("validUTF8(%q) = %v, want %v", b, got, want)
		}
	})
}

// checkAppend checks that each Append function appends its format's
// piece after what dst holds, leaving it as it is, whatever the piece's
// bytes (a Markdown piece made valid UTF-8 must not touch the bytes
// before it).
func checkAppend(t *testing.T, m Message) {
	t.Helper()
	md := Markdown(m)
	formats := []struct {
		name       string
		appendTo   func([]byte) []byte
		standalone []byte
	}{
		{"Markdown", func(d []byte) []byte { return AppendMarkdown(d, m) }, md},
		{"HTML", func(d []byte) []byte { return AppendHTML(d, m) }, HTML(m)},
		{"JSONL", func(d []byte) []byte { return AppendJSONL(d, m) }, JSONL(m)},
		{"JSONMember first", func(d []byte) []byte { return AppendJSONMember(d, m, true) }, JSONMember(m, true)},
		{"JSONMember", func(d []byte) []byte { return AppendJSONMember(d, m, false) }, JSONMember(m, false)},
		{"Redact", func(d []byte) []byte { return AppendRedact(d, md) }, Redact(md)},
	}
	for _, f := range formats {
		for _, prefix := range []string{"", "prefix \xff\n\n"} {
			dst := append(make([]byte, 0, len(prefix)), prefix...)
			if got, want := string(f.appendTo(dst)), prefix+string(f.standalone); got != want {
				t.Fatalf("Append%s(%q, %q) = %q, want %q", f.name, prefix, m.Raw, got, want)
			}
		}
	}
}

func TestAppend(t *testing.T) {
	msgs := append(append([]Message(nil), Sample...), fingerprintExtra...)
	msgs = append(msgs, Message{Raw: []byte("{\"role\":\"user\",\"content\":\"bad \xff\"}")}, Message{Raw: []byte("\xff")},
		Message{Turn: 2, Raw: []byte(`{"role":"event"}`)}, Message{Raw: []byte(`{"role":"user","content":" \n "}`)})
	for _, m := range msgs {
		checkAppend(t, m)
	}
}

func FuzzAppend(f *testing.F) {
	for _, m := range Sample {
		f.Add(m.Raw, m.Turn, m.Note)
	}
	f.Fuzz(func(t *testing.T, raw []byte, turn int, note string) {
		checkAppend(t, Message{Raw: raw, Turn: turn, Note: note})
	})
}

// plainMarkdownHTML is what htmlText takes from the fast path instead of
// markdownHTML(s), or false when it does not take s.
func plainMarkdownHTML(s string) (string, bool) {
	if !plainMarkdown(s) {
		return "", false
	}
	var b strings.Builder
	writePlainMarkdownHTML(&b, s)
	return b.String(), true
}

// FuzzPlainMarkdownHTML holds plainMarkdownHTML to goldmark's bytes for
// the text it takes.
func FuzzPlainMarkdownHTML(f *testing.F) {
	for _, s := range []string{"a b", "a\nb", "a\n\nb", "a\n\n\nb", "it's (x) 50% $5 #3 a-b+c=d/e,f;g?", "a  b",
		"www.x.com", "Www.x", "a.www.b", "a \nb", "a\n b", "a\n1. b", "a\n-b", "a\n\n#b", "Setext\n===", "x\n", "1x", "", "\nA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := plainMarkdownHTML(s)
		if !ok {
			return
		}
		if want := markdownHTML(htmlClean(s)); got != want {
			t.Fatalf("plainMarkdownHTML(%q) = %q, goldmark gives %q", s, got, want)
		}
	})
}

// TestPlainMarkdownHTML checks that the fast path takes plain prose.
func TestPlainMarkdownHTML(t *testing.T) {
	for _, s := range []string{"message 42 lorem ipsum dolor sit amet", "Done.\nAll tests pass.\n\nAnything else?"} {
		got, ok := plainMarkdownHTML(s)
		if !ok {
			t.Fatalf("plainMarkdownHTML leaves %q to goldmark", s)
		}
		if want := markdownHTML(s); got != want {
			t.Fatalf("plainMarkdownHTML(%q) = %q, goldmark gives %q", s, got, want)
		}
	}
}

// TestPlainMarkdownHTMLPieces is FuzzPlainMarkdownHTML on texts glued from
// pieces that the fast path takes or nearly takes, which random bytes
// seldom spell.
func TestPlainMarkdownHTMLPieces(t *testing.T) {
	pieces := []string{"a", "Zed", "word", "x1", " ", "  ", "\n", "\n\n", "\n\n\n", ".", ",", ";", "?", "'", "(", ")", "/", "-", "--", "---",
		"+", "=", "===", "%", "$", "#", "##", "1", "1.", "2)", "www", "www.", "WWW.", "w.", "x.y", "e.g.", "(see", "it's", "$5", "50%", "a/b"}
	rng := rand.New(rand.NewPCG(1, 2))
	taken := 0
	for range 30000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		got, ok := plainMarkdownHTML(s)
		if !ok {
			continue
		}
		taken++
		if want := markdownHTML(htmlClean(s)); got != want {
			t.Fatalf("plainMarkdownHTML(%q) = %q, goldmark gives %q", s, got, want)
		}
	}
	if taken < 1000 {
		t.Fatalf("the fast path took only %d texts", taken)
	}
}

// FuzzAppendMarkdownText holds appendMarkdownText to markdownText.
func FuzzAppendMarkdownText(f *testing.F) {
	for _, s := range []string{"", " \n", "a", "\r\n\r a\r", "x\r", "\n\n  ```go\nx", "~~~\r```", "a\rb\r\nc ", "\u00a0", " \r\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendMarkdownText([]byte("x"), []byte(s))), "x"+markdownText(s); got != want {
			t.Fatalf("appendMarkdownText(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzMarkdownBody holds appendMarkdownBody to body, for any message.
func FuzzMarkdownBody(f *testing.F) {
	for _, m := range Sample {
		f.Add(m.Raw)
	}
	for _, s := range []string{`{"role":"user","content":"a"}`, `{"role":"tool","content":"a"}`, `{"content":" \u00a0 "}`,
		`{"role":"assistant","content":"x","tool_calls":[{"id":"c","function":{"name":"n","arguments":"{}"}}]}`,
		`{"content":"x","tool_calls":null}`, `{"content":"a\rb` + "```" + `"}`, "{\"content\":\"\xff\"}", `{"content":"\u00e9"}`,
		// Arrays of blocks (appendMarkdownBlocks).
		`{"role":"user","content":[]}`, `{"content":[{"type":"text","text":" \u00a0"},"",null,{"type":"text","text":"a"}]}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"` + "```" + `"},{"type":"tool_use","id":"i","name":"Bash","input":{"command":"ls"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"i","content":"out","is_error":true},{"type":"text","text":"x"}]}`,
		`{"role":"assistant","content":[{"type":"function_call","name":"exec_command","call_id":"c","arguments":"{\"cmd\":\"ls\"}"},{"type":"function_call_output","call_id":"c","output":"Exit code: 1\nOutput:\nx"}]}`,
		`{"role":"assistant","content":[{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"e"},{"type":"custom_tool_call","name":"apply_patch","call_id":"c","input":"*** Add File: a\n"}]}`,
		`{"role":"tool","content":[{"type":"tool_result","content":"x"}]}`, `{"content":[1],"tool_calls":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, ok := parseObject(raw)
		if !ok {
			return
		}
		fl := readFields(o)
		if got, want := string(appendMarkdownBody([]byte("x"), &fl)), "x"+body(&fl, markdownStyle{}); got != want {
			t.Fatalf("appendMarkdownBody(%q) = %q, body gives %q", raw, got, want)
		}
	})
}

// TestMarkdownBlocksLimits holds appendMarkdownBody to body where the
// piece is full, which random bytes do not reach: more parts than
// maxParts, and texts past maxShown.
func TestMarkdownBlocksLimits(t *testing.T) {
	many := strings.Repeat(`{"type":"text","text":"a"},`, maxParts+5)
	big := `{"type":"text","text":"` + strings.Repeat("b", maxShown/2) + `"},`
	for _, content := range []string{"[" + many + "1]", "[" + big + big + big + `{"type":"text","text":"c"}]`} {
		o, ok := parseObject([]byte(`{"role":"assistant","content":` + content + `}`))
		if !ok {
			t.Fatal("the test's message does not parse")
		}
		fl := readFields(o)
		if got, want := string(appendMarkdownBody(nil, &fl)), body(&fl, markdownStyle{}); got != want || !strings.Contains(want, "cut: ") {
			t.Fatalf("appendMarkdownBody gives %d bytes, body %d, with a cut marker: %v", len(got), len(want), strings.Contains(want, "cut: "))
		}
	}
}
