package filestore

import (
	"bytes"
	"testing"

	"github.com/sessfs/sessfs/backing"
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
				if err := backing.ValidateMessage(line); err != nil {
					t.Fatalf("indexed an invalid message %q: %v", line, err)
				}
			}
		}
		if len(grown.msgs) != len(once.msgs) || len(grown.bad) != len(once.bad) || len(grown.marks.Turns) != len(once.marks.Turns) {
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
