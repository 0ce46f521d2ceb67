package backing

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// messageSeeds are single messages, good and bad, that FuzzValidateMessage
// starts from (the file engine's FuzzDecodeLines starts from whole logs).
var messageSeeds = []string{
	`{"role":"user","content":"hi"}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}`,
	`{"id":"1","ts":"t","role":"r","content":[]}`,
	"{\"role\":\"user\",\"content\":\"\xff\"}",
	`{"role":"user","content":"x"} trailing`,
	`{"role":"us`,
	// Found by FuzzValidateMessage: "Ts" was taken for "ts", so the
	// prepared line got no time.
	`{"role":"user","content":"x","Ts":""}`,
}

// maxMessage is a generous limit for tests of one message.
const maxMessage = 64 << 20

// Keys are case-sensitive, as they are for the renderers: "Role",
// "Content" and "Ts" are other fields, not the message's role, content
// and time.
func TestKeysAreCaseSensitive(t *testing.T) {
	for _, bad := range []string{
		`{"Role":"user","content":"x"}`,
		`{"role":"user","Content":"x"}`,
		`{"ROLE":"user","CONTENT":"x"}`,
		`{"role":"user","content":"x","context":1}`,
		`{"role":1,"content":"x"}`,
	} {
		if err := ValidateMessage([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", bad, err)
		}
	}
	for _, good := range []string{
		`{"role":"user","content":"x","Ts":""}`,
		`{"r\u006fle":"user","content":"x"}`,
		`{"role":"user","Role":"","content":"x"}`,
	} {
		line, _, _, err := Prepare([]byte(good), time.Unix(0, 0), maxMessage)
		if err != nil {
			t.Errorf("%s: %v", good, err)
			continue
		}
		var m map[string]json.RawMessage
		json.Unmarshal(line, &m)
		if m["ts"] == nil || m["id"] == nil {
			t.Errorf("%s: prepared %s lacks ts or id", good, line)
		}
	}
	// A block whose type is "Type" is not a tool result: the message is
	// a prompt.
	if k, _, err := Classify([]byte(`{"role":"user","content":[{"Type":"tool_result"}]}`)); err != nil || !k.Prompt {
		t.Errorf("user message of a \"Type\" block: %+v %v, want a prompt", k, err)
	}
	if k, _, _ := Classify([]byte(`{"role":"user","content":[{"type":"tool_result"},{"type":"function_call_output"}]}`)); k.Prompt {
		t.Errorf("tool results classified as a prompt")
	}
}

// FuzzValidateMessage checks that validation and preparation agree, and
// that a prepared line keeps every field of its input and is one line.
func FuzzValidateMessage(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\n \"role\" : \"user\",\n \"content\": [ {\"type\":\"text\",\"text\":\"a\"} ], \"x\": null }"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		verr := ValidateMessage(raw)
		line, _, _, perr := Prepare(raw, time.Unix(0, 0), maxMessage)
		if (verr == nil) != (perr == nil) {
			t.Fatalf("validate says %v, prepare says %v", verr, perr)
		}
		// What an importer checks of the messages it builds, and the
		// kind it tells of them, are the store's.
		valid, _ := ScanJSON(raw)
		if !valid || FirstByte(raw) != '{' {
			if verr == nil {
				t.Fatalf("validate takes %q", raw)
			}
			return
		}
		f := Members(raw, "role", "content", "id", "ts", "context", "event")
		if cerr := CheckBuilt(raw, f[0], f[1], f[2], f[3], f[4]); (cerr == nil) != (verr == nil) {
			t.Fatalf("validate says %v, CheckBuilt says %v", verr, cerr)
		}
		if verr != nil {
			return
		}
		if k, _, _ := Classify(line); f[5] == nil && KindOfParts(StringOf(f[0]), f[1], f[4] != nil) != k {
			t.Fatalf("KindOfParts says %+v, Classify %+v", KindOfParts(StringOf(f[0]), f[1], f[4] != nil), k)
		}
		if bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("prepared line holds a newline: %q", line)
		}
		if _, _, err := Classify(line); err != nil {
			t.Fatalf("prepared line does not classify: %v", err)
		}
		var in, out map[string]json.RawMessage
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(line, &out); err != nil {
			t.Fatal(err)
		}
		for k, v := range in {
			var a, b bytes.Buffer
			json.Compact(&a, v)
			json.Compact(&b, out[k])
			if a.String() != b.String() {
				t.Fatalf("field %q: %s became %s", k, v, out[k])
			}
		}
		if out["id"] == nil || out["ts"] == nil {
			t.Fatalf("prepared line lacks id or ts: %s", line)
		}
	})
}

// MessageTime reads "ts" by exact key, the last of duplicates, and only a
// string that parses as RFC 3339.
func TestMessageTime(t *testing.T) {
	want := time.Date(2026, 1, 21, 6, 20, 30, 851e6, time.UTC)
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"role":"user","content":"x","ts":"2026-01-21T06:20:30.851Z"}`, true},
		{`{"ts":"2020-01-01T00:00:00Z","role":"user","content":"x","ts":"2026-01-21T06:20:30.851Z"}`, true},
		{`{"role":"user","content":"x","TS":"2026-01-21T06:20:30.851Z"}`, false},
		{`{"role":"user","content":"x","ts":"yesterday"}`, false},
		{`{"role":"user","content":"x","ts":1769000000}`, false},
		{`{"role":"user","content":"x"}`, false},
	} {
		got, ok := MessageTime([]byte(c.line))
		if ok != c.ok || (ok && !got.Equal(want)) {
			t.Errorf("MessageTime(%s) = %v, %v; want ok %v", c.line, got, ok, c.ok)
		}
	}
}
