package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/fsnode"
)

// The piece sizes a store keeps (index/sizes/): `sessfs import` leaves
// them, a mount restarted over them reports each transcript's size as
// `cat` reads it, after appends through the mount too (context at the
// end, then the prompt whose turn it joins), and serves the same bytes
// as a mount that has to render every message (the sizes deleted).
func TestKeptSizesAcrossRestart(t *testing.T) {
	requireFUSE(t)
	src := sharedData(t, "claude-code/coverage-test-fix.jsonl")[0]
	storeDir := filepath.Join(t.TempDir(), "store")
	name := strings.TrimSpace(cli(t, storeDir, "import", src))
	kept, _ := filepath.Glob(filepath.Join(storeDir, "index", "sizes", "*", "*"))
	if len(kept) < 4 {
		t.Fatalf("sessfs import kept %d files of sizes, want one a format: %v", len(kept), kept)
	}
	files := []string{"transcript.md", "transcript.html", "transcript.redacted.md", "export.json", "messages.jsonl"}
	agree := func(m *mount) map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, f := range files {
			p := m.P(name, f)
			size := statSize(t, p)
			data := cat(t, p)
			if int64(len(data)) != size {
				t.Errorf("%s: stat says %d bytes, cat reads %d", f, size, len(data))
			}
			got[f] = data
		}
		return got
	}

	mnt := mountDir(t)
	m := mountStore(t, storeDir, mnt, fsnode.Options{})
	agree(m)
	sh(t, `printf '%s\n' '{"role":"user","context":"environment","content":"cwd /tmp"}' > "$1"`, m.P(name, "append"))
	agree(m)
	sh(t, `printf '%s\n' '{"role":"user","content":"and now?"}' > "$1"`, m.P(name, "append"))
	before := agree(m)
	m.Unmount(t)

	m = mountStore(t, storeDir, mnt, fsnode.Options{})
	after := agree(m)
	m.Unmount(t)
	if err := os.RemoveAll(filepath.Join(storeDir, "index", "sizes")); err != nil {
		t.Fatal(err)
	}
	m = mountStore(t, storeDir, mnt, fsnode.Options{})
	rendered := agree(m)
	for _, f := range files {
		if after[f] != before[f] || after[f] != rendered[f] {
			t.Errorf("%s: a restarted mount serves other bytes (%d) than before (%d) or than one rendering every message (%d)", f, len(after[f]), len(before[f]), len(rendered[f]))
		}
	}
	if !strings.Contains(rendered["transcript.md"], "context: environment, 8 bytes]_\n\n**user**") {
		t.Error("the appended context and prompt are not in transcript.md")
	}
}
