package render

import "testing"

func TestJSONL(t *testing.T) {
	raw := []byte(`{"role":"user","content":"x","id":"a","ts":"2026-01-01T00:00:00Z"}`)
	got := JSONL(Message{Raw: raw, Turn: 1})
	if string(got) != string(raw)+"\n" {
		t.Fatalf("JSONL = %q", got)
	}
	// The result must not share memory with Raw.
	got[0] = 'X'
	if raw[0] != '{' {
		t.Errorf("JSONL wrote into m.Raw")
	}
	if got := JSONL(Message{}); string(got) != "\n" {
		t.Errorf("JSONL of empty Raw = %q", got)
	}
}
