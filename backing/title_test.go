package backing

import "testing"

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
	if _, err := s.Fork("", Head, "side"); err != nil {
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
	st2, err := Open(st.Root(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := st2.Session("s")
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Append("", [][]byte{msg("user", "third")}); err != nil {
		t.Fatal(err)
	}
	if got := title(t, s2); got != "" {
		t.Fatalf("a cleared title became %q", got)
	}
}

func TestTitleOf(t *testing.T) {
	for in, want := range map[string]string{
		"short":                 "short",
		"  spaced \n\t out  ":   "spaced out",
		"one two three four":    "one two…",
		"abcdefghijklmnopqrstu": "abcdefghi…",
		"one, two three":        "one, two…",
		"one, twothree":         "one…",
	} {
		if got := TitleOf(in, 10); got != want {
			t.Errorf("TitleOf(%q, 10) = %q, want %q", in, got, want)
		}
	}
}
