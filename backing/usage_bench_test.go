package backing

import (
	"bytes"
	"os"
	"testing"

	"github.com/sessfs/sessfs/integration/realdata"
)

// BenchmarkUsageOf reads the usage of every line of the real sessions, as
// stored lines would carry them (the index reads each message once): its
// MB/s is what usage costs an index build.
func BenchmarkUsageOf(b *testing.B) {
	files, _ := realdata.Files()
	if len(files) == 0 {
		b.Skip("no real sessions beside the repository")
	}
	var lines [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > 0 {
				l = stored(string(l))
				lines = append(lines, l)
				size += len(l)
			}
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		t := NewTally()
		st := t.Stream("")
		for _, l := range lines {
			st.Add(l)
		}
	}
}
