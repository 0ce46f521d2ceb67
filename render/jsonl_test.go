package render

import (
	"encoding/json"
	"testing"
)

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

// The export.json framing makes one valid document whatever the messages
// hold, damaged lines included, and members never depend on what follows.
func TestJSONDocument(t *testing.T) {
	msgs := []string{`{"role":"user","content":"hi"}`, `not json at all`, `{"role":"assistant","content":[{"type":"text","text":"a\nb"}]}`}
	doc := JSONHead(JSONParts{Meta: []byte("{\n  \"id\": \"x\",\n  \"name\": \"s\"\n}\n"), Tasks: []byte(`{"tasks":[]}`), Branches: []byte(`[{"id":"b1"}]`), Branch: "b1"})
	for i, m := range msgs {
		doc = append(doc, JSONMember(Message{Raw: []byte(m)}, i == 0)...)
	}
	doc = append(doc, JSONTail()...)
	var v struct {
		Meta     struct{ Name string }
		Tasks    json.RawMessage
		Memory   json.RawMessage
		Branches []struct{ ID string }
		Branch   string
		Messages []json.RawMessage
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%v in\n%s", err, doc)
	}
	if v.Meta.Name != "s" || string(v.Tasks) != `{"tasks":[]}` || string(v.Memory) != "null" || v.Branch != "b1" || len(v.Branches) != 1 || len(v.Messages) != 3 || string(v.Messages[1]) != `"not json at all"` {
		t.Errorf("decoded %+v", v)
	}
	if h := JSONHead(JSONParts{Meta: []byte("{broken"), Branch: "b"}); !json.Valid(append(h, JSONTail()...)) {
		t.Errorf("head with broken meta: %s", h)
	}
}
