package main

import "testing"

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"cut this title near a word boundary please", 20, "cut this title near…"},
		{"ünïcödé letters cut by runes", 8, "ünïcödé…"},
		{"abcdefghijklmnop", 6, "abcde…"},
	} {
		if got := shorten(c.in, c.n); got != c.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
