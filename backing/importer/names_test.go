package importer

import (
	"regexp"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"expressive-chasing-pie":                          "expressive-chasing-pie",
		"Fix the flaky upload test":                       "fix-the-flaky-upload-test",
		"  Fix\nthe\tparser!! ":                           "fix-the-parser",
		"Don't break the build":                           "dont-break-the-build",
		"multiply_numbers(a: int, b: int) -> int":         "multiply-numbers-a-int-b-int",
		"one two three four five six seven":               "one-two-three-four-five-six",
		"[REDACTED_MESSAGE len=115 sha=a83ebe6f]":         "redacted-message-len-115-sha-a83ebe6f",
		"Tested various edge cases including markdown…":   "tested-various-edge-cases-including",
		"a naïve café in Zürich, then home":               "a-in-then-home",
		"日本語のタイトル":                                        "",
		"":                                                "",
		strings.Repeat("x", 41) + " short":                "",
		"todowrite_session":                               "todowrite-session",
		"Supercalifragilisticexpialidocious is long, yes": "supercalifragilisticexpialidocious-is",
	} {
		got := slug(in)
		if got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
		if len(got) > slugMaxBytes || !regexp.MustCompile(`^([a-z0-9]+(-[a-z0-9]+)*)?$`).MatchString(got) {
			t.Errorf("slug(%q) = %q: not a few lower-case ASCII words joined by '-'", in, got)
		}
	}
}
