package backing

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	`{"role":"user","content":"hi"}` + "\n",
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}` + "\n" + `{"role":"assistant","content":"a"}` + "\n",
	"garbage\n" + `{"role":"user","content":"x"}` + "\n" + `{"role":"us`,
	"\n\n  \n" + `{"id":"1","ts":"t","role":"r","content":[]}` + "\n",
	"{\"role\":\"user\",\"content\":\"\xff\"}\n",
	`{"role":"user","content":"x"} trailing` + "\n",
	// Found by FuzzValidateMessage: "Ts" was taken for "ts", so the
	// prepared line got no time.
	`{"role":"user","content":"x","Ts":""}` + "\n",
}

// FuzzDecodeLines feeds arbitrary bytes to the log decoder, in two pieces
// as a growing log arrives, and checks it against the same bytes read at
// once and against what each line really is.
func FuzzDecodeLines(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint(i*7))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		cut := int64(split % uint(len(data)+1))
		grown := &logIndex{}
		if err := grown.scan(bytes.NewReader(data[:cut]), cut); err != nil {
			t.Fatal(err)
		}
		if err := grown.scan(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		once := &logIndex{}
		if err := once.scan(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		for _, x := range []*logIndex{grown, once} {
			if want := int64(bytes.LastIndexByte(data, '\n') + 1); x.scanned != want {
				t.Fatalf("scanned %d, want %d", x.scanned, want)
			}
			if nl := bytes.Count(data, []byte("\n")); x.lines != nl {
				t.Fatalf("%d lines indexed, the data has %d", x.lines, nl)
			}
			for _, r := range x.msgs {
				line := data[r.off : r.off+int64(r.n)]
				if data[r.off+int64(r.n)] != '\n' || bytes.IndexByte(line, '\n') >= 0 {
					t.Fatalf("message at %d is not one line", r.off)
				}
				if err := ValidateMessage(line); err != nil {
					t.Fatalf("indexed an invalid message %q: %v", line, err)
				}
			}
		}
		if len(grown.msgs) != len(once.msgs) || len(grown.bad) != len(once.bad) || len(grown.turns) != len(once.turns) {
			t.Fatalf("growing log indexed %d msgs %d bad, at once %d msgs %d bad",
				len(grown.msgs), len(grown.bad), len(once.msgs), len(once.bad))
		}
		for i := range grown.msgs {
			if grown.msgs[i] != once.msgs[i] {
				t.Fatalf("message %d: %+v vs %+v", i, grown.msgs[i], once.msgs[i])
			}
		}
	})
}

// FuzzValidateMessage checks that validation and preparation agree, and
// that a prepared line keeps every field of its input and is one line.
func FuzzValidateMessage(f *testing.F) {
	for _, s := range fuzzSeeds {
		for _, l := range bytes.Split([]byte(s), []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte("{\n \"role\" : \"user\",\n \"content\": [ {\"type\":\"text\",\"text\":\"a\"} ], \"x\": null }"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		verr := ValidateMessage(raw)
		line, _, _, perr := prepare(raw, time.Unix(0, 0), DefaultMaxMessage)
		if (verr == nil) != (perr == nil) {
			t.Fatalf("validate says %v, prepare says %v", verr, perr)
		}
		if verr != nil {
			return
		}
		if bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("prepared line holds a newline: %q", line)
		}
		if _, err := classify(line); err != nil {
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
