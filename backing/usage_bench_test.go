package backing

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkUsageOf reads the usage of every line of the real sessions, as
// stored lines would carry them (the index reads each message once): its
// MB/s is what usage costs an index build.
func BenchmarkUsageOf(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "data", "*", "*.jsonl"))
	if len(files) == 0 {
		b.Skip("no real sessions in ../shared/data")
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
