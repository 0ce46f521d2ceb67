package fsnode

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

func appendSnapshot(t *testing.T, s backing.Session, path string, turn int, content string, exists bool) {
	t.Helper()
	line, err := backing.SnapshotEvent(path, turn, []byte(content), exists, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{line}); err != nil {
		t.Fatal(err)
	}
}

// turns/<n>/files/ shows the turn's snapshots of files that existed under
// their original paths, read-only, of exact size, the first of the turn
// for each path; files.json lists them all, those of files that did not
// exist too; each turn shows its own.
func TestTurnFiles(t *testing.T) {
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(text string) {
		if err := s.AppendID("", [][]byte{fmt.Appendf(nil, `{"role":"user","content":%q}`, text)}); err != nil {
			t.Fatal(err)
		}
	}
	add("q1")
	appendSnapshot(t, s, "/home/u/p/a.go", 1, "package a\n", true)
	appendSnapshot(t, s, "/home/u/p/sub/b.bin", 1, "\x00\xff", true)
	appendSnapshot(t, s, "/home/u/p/new.go", 1, "", false)
	appendSnapshot(t, s, "/home/u/p/a.go", 1, "second", true) // stands for nothing
	add("q2")
	appendSnapshot(t, s, "/home/u/p/a.go", 2, "package a // 2\n", true)
	k := newKernel(t, st, Options{})

	if names, _ := k.readdir("s/turns/1"); !slices.Contains(names, "files") || !slices.Contains(names, "files.json") {
		t.Errorf("turns/1 lists %v", names)
	}
	for _, c := range []struct{ dir, want string }{
		{"s/turns/1/files", "[home]"},
		{"s/turns/1/files/home/u/p", "[a.go sub]"},
		{"s/turns/1/files/home/u/p/sub", "[b.bin]"},
		{"s/branches/main/turns/2/files/home/u/p", "[a.go]"},
	} {
		if got, errno := k.readdir(c.dir); errno != 0 || fmt.Sprint(got) != c.want {
			t.Errorf("ls %s: %v %v, want %s", c.dir, got, errno, c.want)
		}
	}
	for path, want := range map[string]string{
		"s/turns/1/files/home/u/p/a.go":      "package a\n",
		"s/turns/1/files/home/u/p/sub/b.bin": "\x00\xff",
		"s/turns/2/files/home/u/p/a.go":      "package a // 2\n",
	} {
		a, errno := k.stat(path)
		if errno != 0 || a.Size != uint64(len(want)) || a.Mode != syscall.S_IFREG|0o555 {
			t.Errorf("stat %s: size %d mode %o (%v), want %d, 0555", path, a.Size, a.Mode, errno, len(want))
		}
		if got := string(k.catFile(path, 3)); got != want {
			t.Errorf("cat %s = %q, want %q", path, got, want)
		}
	}
	if d, f := k.dirInos("s/turns/1/files/home/u/p"), k.inode("s/turns/1/files/home/u/p/a.go").StableAttr().Ino; d["a.go"] != f || d["a.go"] == k.dirInos("s/turns/2/files/home/u/p")["a.go"] {
		t.Errorf("a.go: d_ino %d, st_ino %d, both unlike turn 2's", d["a.go"], f)
	}
	if _, errno := k.stat("s/turns/1/files/home/u/p/new.go"); errno != syscall.ENOENT {
		t.Errorf("a file that did not exist: %v, want ENOENT", errno)
	}
	var listed []backing.Snapshot
	if err := json.Unmarshal(k.catFile("s/turns/1/files.json", 100), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed) != 3 || listed[2].Path != "/home/u/p/new.go" || listed[2].Exists || listed[0].Size != 10 || listed[0].SHA256 == "" {
		t.Errorf("files.json: %+v", listed)
	}
	if got := string(k.catFile("s/turns/2/files.json", 100)); !json.Valid([]byte(got)) || slices.Contains([]string{"[]\n", ""}, got) {
		t.Errorf("turn 2's files.json: %q", got)
	}
	if _, errno := k.open("s/turns/1/files/home/u/p/a.go", syscall.O_WRONLY); errno != syscall.EACCES {
		t.Errorf("open for writing: %v, want EACCES", errno)
	}
	if _, errno := k.create("s/turns/1/files/home/x", syscall.O_WRONLY); errno != syscall.EPERM {
		t.Errorf("create in files/: %v, want EPERM", errno)
	}
	// A snapshot appended later shows at once.
	appendSnapshot(t, s, "/etc/c", 2, "c", true)
	if got, _ := k.readdir("s/turns/2/files"); fmt.Sprint(got) != "[etc home]" {
		t.Errorf("turn 2's files/ after a new snapshot: %v", got)
	}
}

// countingHistory is an agent's file history that records no file and
// counts the event lines it is asked about.
type countingHistory struct{ asked *atomic.Int64 }

func (h countingHistory) Files(backing.Meta, []byte) (string, []backing.AgentFile) {
	h.asked.Add(1)
	return "", nil
}

// The turns' folders share their branch's snapshots: files.json of every
// turn reads the branch's events once, and again only once it grew.
func TestTurnFilesShared(t *testing.T) {
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	const turns = 5 // an imported event a turn
	for i := range turns {
		if err := s.AppendID("", [][]byte{
			fmt.Appendf(nil, `{"role":"user","content":"q%d"}`, i),
			fmt.Appendf(nil, `{"role":"event","content":"","event":"file-history-snapshot","source":{"type":"file-history-snapshot"},"source_seq":%d}`, 2*i+1),
		}); err != nil {
			t.Fatal(err)
		}
	}
	asked := &atomic.Int64{}
	k := newKernel(t, st, Options{FileHistory: countingHistory{asked}})
	for range 2 {
		for i := 1; i <= turns; i++ {
			k.catFile(fmt.Sprintf("s/turns/%d/files.json", i), 100)
		}
	}
	if n := asked.Load(); n != turns {
		t.Errorf("files.json of %d turns, twice, asked about %d event lines, want each of the %d once", turns, n, turns)
	}
	appendSnapshot(t, s, "/etc/c", turns, "c", true)
	asked.Store(0)
	for i := 1; i <= turns; i++ {
		k.catFile(fmt.Sprintf("s/turns/%d/files.json", i), 100)
	}
	if n := asked.Load(); n != turns {
		t.Errorf("after a new line: asked about %d event lines, want %d", n, turns)
	}
}
