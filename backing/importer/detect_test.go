package importer

import (
	"errors"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Format // "" means ErrUnknownFormat
	}{
		{"empty", "", ""},
		{"blank lines", "\n\n  \n", ""},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00", ""},
		{"prose", "hello world\n", ""},
		{"markdown", "# Title\n\n{\"type\":\"user\"}\n", ""},
		{"csv", "a,b,c\n1,2,3\n", ""},
		{"json array", "[1,2,3]\n", ""},
		{"json number", "42\n", ""},
		{"object of no known shape", `{"silly":"this"}` + "\n", ""},
		{"unknown type", `{"type":"banana","sessionId":"s"}`, ""},
		{"codex type without payload", `{"timestamp":"t","type":"session_meta"}`, ""},
		{"claude type with payload", `{"type":"user","payload":{}}`, ""},
		{"truncated first line", `{"type":"user","message":{"role":`, ""},

		{"codex session_meta", `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`, Codex},
		{"codex after blank", "\n" + `{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, Codex},
		{"claude user", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, ClaudeCode},
		{"claude summary first", `{"type":"summary","summary":"x","leafUuid":"u"}`, ClaudeCode},
		{"claude after an unknown object", `{"silly":"this"}` + "\n" + `{"type":"queue-operation"}`, ClaudeCode},
		{"claude file history delta first", `{"type":"file-history-delta","messageId":"m","trackingPath":"a.go","backup":{"backupFileName":null,"version":1}}`, ClaudeCode},
		{"claude, CRLF", `{"type":"assistant","message":{}}` + "\r\n", ClaudeCode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Detect(strings.NewReader(tc.in))
			if tc.want == "" {
				if !errors.Is(err, ErrUnknownFormat) {
					t.Errorf("Detect = %q, %v; want ErrUnknownFormat", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Detect = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// Detect gives up after a few lines it cannot place rather than reading a
// whole large file of them.
func TestDetectLooksOnlyAtTheStart(t *testing.T) {
	in := strings.Repeat(`{"silly":"this"}`+"\n", detectMaxLines) + `{"type":"user"}` + "\n"
	if f, err := Detect(strings.NewReader(in)); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Detect = %q, %v; want ErrUnknownFormat", f, err)
	}
}

// What Detect did not recognise is said in words a message can quote.
func TestDetectReason(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "it is empty",
		"\n \n":                         "it is empty",
		`{"silly":"this"}` + "\nnope\n": "line 2 is not JSON",
		`{"silly":"this"}` + "\n":       "no line of it is of a known format",
		strings.Repeat(`{"silly":"this"}`+"\n", detectMaxLines+1): "none of its first 16 lines is of a known format",
	} {
		_, err := Detect(strings.NewReader(in))
		var de *DetectError
		if !errors.As(err, &de) || de.Reason != want || !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Detect(%.30q) = %v, want a DetectError %q", in, err, want)
		}
	}
	if ClaudeCode.Noun() != "Claude Code session" || Codex.Noun() != "Codex rollout" {
		t.Errorf("nouns: %q, %q", ClaudeCode.Noun(), Codex.Noun())
	}
}
