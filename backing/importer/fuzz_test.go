package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/sessfs/sessfs/integration/realdata"

	"github.com/sessfs/sessfs/backing"
)

// FuzzDecode: whatever the input, Decode does not panic, and when it
// succeeds every line is a message or an event, every message is valid,
// and every message gives its line back after the store's compaction.
func FuzzDecode(f *testing.F) {
	paths, _ := realdata.Files()
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		ls := bytes.SplitN(data, []byte("\n"), 4) // a few lines each: small seeds
		f.Add(bytes.Join(ls[:min(3, len(ls))], []byte("\n")))
	}
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"x"}}` + "\r\n\n[1]"))
	f.Add([]byte("{\n  \"sessionId\": \"d\",\n  \"messages\": [\n    {\"id\": \"1\", \"type\": \"user\", \"content\": \"hi\"}\n  ]\n}\n"))
	f.Add([]byte(`{"sessionId":"s","projectHash":"h"}` + "\n" + `{"id":"g","type":"gemini","content":"a"}` + "\n" + `{"id":"g","type":"gemini","content":"a","toolCalls":[{"id":"c"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, format := range []Format{ClaudeCode, Codex, Gemini} {
			s, err := Decode(bytes.NewReader(in), format)
			if err != nil {
				continue
			}
			if format == Gemini && geminiDocument(in) {
				checkDocument(t, s, in)
				continue
			}
			var msgLines [][]byte
			n := 0
			for _, l := range bytes.Split(in, []byte("\n")) {
				if len(bytes.TrimSpace(l)) > 0 {
					n++
					if !isEvent(s, l) {
						msgLines = append(msgLines, l)
					}
				}
			}
			if len(s.Messages)+len(s.Events) != n {
				t.Fatalf("%s: %d messages + %d events, %d lines", format, len(s.Messages), len(s.Events), n)
			}
			for i, m := range s.Messages {
				if err := backing.ValidateMessage(m); err != nil {
					t.Fatalf("%s: message %d: %v", format, i, err)
				}
				var c bytes.Buffer
				if err := json.Compact(&c, m); err != nil {
					t.Fatal(err)
				}
				back, err := SourceLine(c.Bytes())
				if err != nil || i >= len(msgLines) || !bytes.Equal(back, msgLines[i]) {
					t.Fatalf("%s: message %d does not give its line back: %q, %v", format, i, back, err)
				}
			}
		}
	})
}

// isEvent reports whether line is one of s's events (by identity of bytes;
// good enough for the fuzzer, which only needs the message lines in order).
func isEvent(s *Session, line []byte) bool {
	for _, e := range s.Events {
		if bytes.Equal(e, line) {
			return true
		}
	}
	return false
}

// checkDocument: a Gemini document's parts, put back together as Original
// does, are the document (less a final newline it lacked), when it has no
// line of only spaces (which the import, like eachLine, does not keep).
func checkDocument(t *testing.T, s *Session, in []byte) {
	for _, l := range bytes.Split(in, []byte("\n")) {
		if len(l) > 0 && len(bytes.TrimSpace(l)) == 0 {
			return
		}
	}
	lines, err := s.StoreLines()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	next := 1
	for _, l := range lines {
		seq, _ := SourceSeq(l)
		var c bytes.Buffer
		json.Compact(&c, l)
		part, err := SourceLine(c.Bytes())
		if err != nil {
			t.Fatalf("part %d: %v", seq, err)
		}
		for ; next < seq; next++ {
			out.WriteByte('\n')
		}
		out.Write(part)
		out.WriteByte('\n')
		next = seq + 1 + bytes.Count(part, []byte("\n"))
	}
	got := out.Bytes()
	if !bytes.Equal(got, in) && !bytes.Equal(got[:len(got)-1], in) {
		t.Fatalf("document parts give back %q, not %q", got, in)
	}
}
