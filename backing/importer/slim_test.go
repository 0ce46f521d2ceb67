package importer

import (
	"bytes"
	"strings"
	"testing"
)

// Slim cuts the content's copy out of the line only where the line holds
// those very bytes, and SourceLine puts it back.
func TestSlim(t *testing.T) {
	long := `"` + strings.Repeat("x", minHole) + `"`
	item := `{"type":"function_call","name":"shell","arguments":"` + strings.Repeat("y", minHole) + `"}`
	for _, c := range []struct {
		name, line, content, hole string
	}{
		{"claude", `{"type":"user","message":{"role":"user","content":` + long + `},"uuid":"u"}`, long, "message.content"},
		{"system", `{"type":"system","content":` + long + `}`, long, "content"},
		{"codex block", `{"type":"response_item","payload":` + item + `}`, `[` + item + `]`, "payload"},
		{"short", `{"message":{"content":"hi"}}`, `"hi"`, ""},
		{"differs", `{"message":{"content":` + long + `}}`, `"` + strings.Repeat("z", minHole) + `"`, ""},
		{"two blocks", `{"payload":` + item + `}`, `[` + item + `,` + item + `]`, ""},
	} {
		msg := []byte(`{"role":"user","content":` + c.content + `,"source":` + c.line + `,"source_seq":3}`)
		slim := Slim(msg)
		hole := bytes.Contains(slim, []byte(`"source_hole":"`+c.hole+`"`))
		switch {
		case c.hole == "" && !bytes.Equal(slim, msg):
			t.Errorf("%s: changed: %s", c.name, slim)
		case c.hole != "" && (!hole || len(slim) >= len(msg)):
			t.Errorf("%s: not slim at %q: %s", c.name, c.hole, slim)
		}
		back, err := SourceLine(slim)
		if err != nil || string(back) != c.line {
			t.Errorf("%s: SourceLine = %s, %v", c.name, back, err)
		}
		if again := Slim(slim); !bytes.Equal(again, slim) {
			t.Errorf("%s: a slim message slimmed again: %s", c.name, again)
		}
	}
}

// A hole SourceLine cannot fill is an error, never a wrong line.
func TestSourceLineBadHole(t *testing.T) {
	for _, msg := range []string{
		`{"role":"user","content":"abc","source":{"message":{"content":null}},"source_hole":"nowhere"}`,
		`{"role":"user","content":"abc","source":{"message":{"content":"abc"}},"source_hole":"message.content"}`,
		`{"role":"user","content":"abc","source":{"message":{}},"source_hole":"message.content"}`,
		`{"role":"user","content":"abc","source":{"payload":null},"source_hole":"payload"}`,
	} {
		if line, err := SourceLine([]byte(msg)); err == nil {
			t.Errorf("%s: gave %s", msg, line)
		}
	}
}
