package filestore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openUnder counts the descriptors this process holds on sealed files
// under root.
func openUnder(t *testing.T, root string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if strings.HasPrefix(target, root) && strings.HasSuffix(target, sealedSuffix) {
			n++
		}
	}
	return n
}

// Reading every session of a store keeps maxOpenSealed sealed files open,
// however many handles keep their indexes, and reads the same bytes
// again through files closed and opened anew.
func TestSealedFilesBounded(t *testing.T) {
	defer func(n int) { maxOpenSealed = n }(maxOpenSealed)
	maxOpenSealed = 3
	st := sealStore(t)
	var sessions []*Session
	var want [][]string
	for i := range 8 {
		s := newSession(t, st, fmt.Sprintf("s%d", i))
		longLog(t, s, "", fmt.Sprintf("s%d-", i), 30)
		want = append(want, contents(t, s, ""))
		seal(t, s, "")
		sessions = append(sessions, s)
	}
	for round := range 3 {
		for i, s := range sessions {
			if got := contents(t, s, ""); !slices.Equal(got, want[i]) {
				t.Fatalf("round %d, session %d: read otherwise after its file was closed", round, i)
			}
		}
		if n := openUnder(t, st.Root()); n > maxOpenSealed {
			t.Fatalf("round %d: %d sealed files open, want at most %d", round, n, maxOpenSealed)
		}
	}
}

// A reader whose sealed file was closed (as sealedFiles closes the ones
// read longest ago) and then replaced by a further seal reads the new one.
func TestSealedFileReplacedWhileClosed(t *testing.T) {
	st := sealStore(t)
	s := newSession(t, st, "s")
	longLog(t, s, "", "", 40)
	seal(t, s, "")
	path := logPath(t, s, "")
	f, err := openLogFile(path, &sealedSource{path: sealedPath(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.z == nil {
		t.Fatal("nothing sealed")
	}
	want := logBytes(t, path)[:f.Size()]
	f.z.closeIdle()
	longLog(t, s, "", "more ", 20)
	seal(t, s, "")
	got := make([]byte, f.Size())
	if _, err := f.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read after the file was closed and replaced: %v", err)
	}
}
