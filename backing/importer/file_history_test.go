package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// fileHistoryDir is a hand-made Claude Code session (cwd /home/dev/proj)
// whose turns edit files, with the file-history folder its lines name:
// turn 1 edits notes.md (an update line) and creates greet.txt (null
// backup); turn 2's snapshot has both as turn 1 left them, and a delta
// adds assets/logo.bin (binary, by realParentDir); turn 3's snapshot
// names a backup that is not on the machine and one whose name is not a
// backup's.
const fileHistoryDir = "testdata/claude-file-history"

const fileHistorySession = "0199a3c2-5e1f-7d40-9b2a-3c4d5e6f7a81"

// importFileHistory imports the fixture into a fresh file store and
// returns the session and its default branch.
func importFileHistory(t *testing.T) (backing.Session, backing.View) {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return importedView(t, st, filepath.Join(fileHistoryDir, fileHistorySession+".jsonl"))
}

// Claude Code's own file history, imported, gives the snapshots of each
// turn its lines record whose copy is on this machine, each in the turn
// of the prompt it names, with its copy's content; a copy that is gone
// and a name that is not a backup's give none.
func TestClaudeFileHistory(t *testing.T) {
	s, v := importFileHistory(t)
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	h := ClaudeFileHistory{Dir: filepath.Join(fileHistoryDir, "file-history")}
	all, err := backing.Snapshots(v, m, h)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, snap := range all {
		c, err := backing.SnapshotContent(v, snap)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(c)) != snap.Size {
			t.Errorf("%s in turn %d: size %d, content %d bytes", snap.Path, snap.Turn, snap.Size, len(c))
		}
		if snap.Exists {
			if fi, err := os.Stat(snap.Backup); err != nil || uint32(fi.Mode().Perm()) != snap.Mode {
				t.Errorf("%s in turn %d: mode %o, its copy's %v (%v)", snap.Path, snap.Turn, snap.Mode, fi.Mode(), err)
			}
		}
		got = append(got, fmt.Sprintf("%d %s %t %q", snap.Turn, snap.Path, snap.Exists, c))
	}
	want := []string{
		`1 /home/dev/proj/notes.md true "old notes\n"`,
		`1 /home/dev/proj/greet.txt false ""`,
		`2 /home/dev/proj/notes.md true "notes after turn 1\n"`,
		`2 /home/dev/proj/greet.txt true "hello\n"`,
		`2 /home/dev/proj/assets/logo.bin true "\x00\x01\xff\xfe\x89"`,
		`3 /home/dev/proj/notes.md true "notes after turn 1\n"`,
		`3 /home/dev/proj/greet.txt true "hello, world\n"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("snapshots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, snap := range all {
		if snap.Exists && !strings.HasPrefix(snap.Backup, h.Dir+"/"+fileHistorySession+"/") {
			t.Errorf("%s: backup %s is outside the session's folder", snap.Path, snap.Backup)
		}
	}
	// Without the reader, the same lines are events and no snapshot.
	if none, err := backing.Snapshots(v, m, nil); err != nil || len(none) != 0 {
		t.Errorf("without a file history: %d snapshots, %v", len(none), err)
	}
}

// The lines stay what they were: the export of the original is the file.
func TestClaudeFileHistoryKeptAsIs(t *testing.T) {
	s, _ := importFileHistory(t)
	data, _, err := Original(s)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(fileHistoryDir, fileHistorySession+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, src) {
		t.Error("export of the original differs from the source")
	}
}

// Only Claude Code's sessions have its file history, and only in their own
// folder: another origin, or an id that would leave the folder, gives none.
func TestClaudeFileHistoryOnlyItsOwn(t *testing.T) {
	s, v := importFileHistory(t)
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	h := ClaudeFileHistory{Dir: filepath.Join(fileHistoryDir, "file-history")}
	line, err := v.Read(0, 1) // the first snapshot line, an event
	if err != nil {
		t.Fatal(err)
	}
	update, err := v.Read(3, 4) // turn 1's update: notes.md
	if err != nil {
		t.Fatal(err)
	}
	if prompt, files := h.Files(m, update[0].Raw); prompt != "0199a3c2-6000-7000-8000-000000000001" || len(files) != 1 {
		t.Fatalf("turn 1's update: prompt %q, %d files; want its prompt and 1 file", prompt, len(files))
	}
	if _, files := h.Files(m, line[0].Raw); len(files) != 0 {
		t.Errorf("an empty snapshot gives %d files", len(files))
	}
	for _, src := range []string{
		`{"format":"codex","id":"` + fileHistorySession + `"}`,
		`{"format":"claude-code","id":"../` + fileHistorySession + `"}`,
		`{"format":"claude-code","id":".."}`,
	} {
		m2 := m
		m2.Extra = map[string]json.RawMessage{"source": json.RawMessage(src)}
		if _, files := h.Files(m2, update[0].Raw); len(files) != 0 {
			t.Errorf("source %s: %d files, want none", src, len(files))
		}
	}
}
