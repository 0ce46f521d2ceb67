package render

import (
	"strings"
	"testing"
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

// checkAppend checks that AppendMarkdown appends Markdown's piece after
// what dst holds, leaving it as it is, whatever the piece's bytes (a
// piece made valid UTF-8 must not touch the bytes before it).
func checkAppend(t *testing.T, m Message) {
	t.Helper()
	for _, prefix := range []string{"", "prefix \xff\n\n"} {
		dst := append(make([]byte, 0, len(prefix)), prefix...)
		if got, want := string(AppendMarkdown(dst, m)), prefix+string(Markdown(m)); got != want {
			t.Fatalf("AppendMarkdown(%q, %q) = %q, want %q", prefix, m.Raw, got, want)
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
