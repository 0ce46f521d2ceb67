package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// countingSession counts the appends storeMissing makes and the most
// bytes one of them carried.
type countingSession struct {
	backing.Session
	appends, most int
}

func (c *countingSession) AppendID(branchID string, msgs [][]byte) error {
	c.appends++
	n := 0
	for _, m := range msgs {
		n += len(m)
	}
	c.most = max(c.most, n)
	return c.Session.AppendID(branchID, msgs)
}

// A source bigger than appendChunk is stored in several appends, none
// much bigger than it (one line over, at most), and gives its source back
// byte for byte.
func TestStoreMissingAppendsInChunks(t *testing.T) {
	defer func(n int) { appendChunk = n }(appendChunk)
	appendChunk = 4 << 10
	for _, df := range dataFiles(t) {
		t.Run(filepath.Base(df.path), func(t *testing.T) {
			data, err := os.ReadFile(df.path)
			if err != nil {
				t.Fatal(err)
			}
			src, err := Decode(bytes.NewReader(data), df.format)
			if err != nil {
				t.Fatal(err)
			}
			main, forks, err := src.Branches()
			if err != nil {
				t.Fatal(err)
			}
			st, err := filestore.Open(t.TempDir(), filestore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, _, err := st.Create("s", backing.Meta{Title: "s"})
			if err != nil {
				t.Fatal(err)
			}
			c := &countingSession{Session: s}
			n, err := storeMissing(c, main, forks)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > 2*appendChunk && c.appends < 2 {
				t.Errorf("%d bytes stored in %d appends", len(data), c.appends)
			}
			longest := 0
			for _, l := range append(append([][]byte(nil), main...), forkLines(forks)...) {
				longest = max(longest, len(l))
			}
			if c.most > appendChunk+longest {
				t.Errorf("an append of %d bytes, the chunk is %d", c.most, appendChunk)
			}
			if n != len(src.Messages)+len(src.Events) {
				t.Errorf("stored %d lines of %d", n, len(src.Messages)+len(src.Events))
			}
			got, _, err := Original(s)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSuffix(got, []byte("\n")), bytes.TrimSuffix(data, []byte("\n"))) {
				t.Errorf("Original differs from the source (%d bytes, want %d)", len(got), len(data))
			}
		})
	}
}

func forkLines(forks []Fork) [][]byte {
	var out [][]byte
	for _, f := range forks {
		out = append(out, f.Lines...)
	}
	return out
}
