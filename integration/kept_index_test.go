package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// The logs' kept message index (index/logs/): a mount's first read of a
// long session keeps it, a restarted mount serves the same bytes from it,
// a log replaced under it (as a migration or a hand does) is read anew
// and never from it, and a mount with index/ deleted serves the same bytes
// as one over it.
func TestKeptIndexAcrossRestart(t *testing.T) {
	requireFUSE(t)
	storeDir := filepath.Join(t.TempDir(), "store")
	name := strings.TrimSpace(cli(t, storeDir, "new", "long"))
	var in strings.Builder
	for i := range 3000 { // about 3 MB: past what is worth keeping
		role := []string{"user", "assistant"}[i%2]
		fmt.Fprintf(&in, `{"role":%q,"content":"message %d %s"}`+"\n", role, i, strings.Repeat("x", 1000))
	}
	if r := cliResult(t, storeDir, in.String(), "append", name, "-"); r.code != 0 {
		t.Fatalf("append: %v", r)
	}
	files := []string{"transcript.md", "messages.jsonl"}
	read := func() map[string]string {
		t.Helper()
		m := mountStore(t, storeDir, mountDir(t), fsnode.Options{})
		defer m.Unmount(t)
		got := map[string]string{}
		for _, f := range files {
			p := m.P(name, f)
			size := statSize(t, p)
			got[f] = cat(t, p)
			if int64(len(got[f])) != size {
				t.Errorf("%s: stat says %d bytes, cat reads %d", f, size, len(got[f]))
			}
		}
		return got
	}

	first := read()
	kept, _ := filepath.Glob(filepath.Join(storeDir, "index", "logs", "*", "*"))
	if len(kept) != 1 {
		t.Fatalf("a mount that read a 3 MB log kept %d indexes of it, want 1: %v", len(kept), kept)
	}
	if again := read(); again["transcript.md"] != first["transcript.md"] || again["messages.jsonl"] != first["messages.jsonl"] {
		t.Error("a mount over the kept index serves other bytes")
	}

	// The log replaced by a copy as long, a line where the old one had its
	// last: its first message moved to the end, changed. Believed, the
	// kept index would cut lines in the wrong places. The log's bytes are
	// messages.jsonl's (its start may be sealed: zeros in the log, the
	// lines in the .zst beside it, which goes with the log it belongs to).
	logs, _ := filepath.Glob(filepath.Join(storeDir, "sessions", "*", "logs", "*.jsonl"))
	if err := os.Remove(logs[0] + ".zst"); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	data := []byte(first["messages.jsonl"])
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	moved := bytes.Replace(head, []byte("message 0 "), []byte("moved 000 "), 1)
	data = append(append(rest, moved...), '\n')
	if err := os.WriteFile(logs[0]+".new", data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(logs[0]+".new", logs[0]); err != nil {
		t.Fatal(err)
	}
	replaced := read()
	if lines := strings.Split(strings.TrimSuffix(replaced["messages.jsonl"], "\n"), "\n"); len(lines) != 3000 ||
		!strings.Contains(lines[0], `"message 1 x`) || !strings.Contains(lines[2999], `"moved 000 x`) {
		t.Error("a mount over a replaced log served what the kept index said of the old one")
	}
	if err := os.RemoveAll(filepath.Join(storeDir, "index")); err != nil {
		t.Fatal(err)
	}
	if scanned := read(); scanned["transcript.md"] != replaced["transcript.md"] || scanned["messages.jsonl"] != replaced["messages.jsonl"] {
		t.Error("a mount with index/ deleted serves other bytes than one over it")
	}
}
