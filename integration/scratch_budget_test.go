package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/fsnode"
)

// Editors' temporaries are charged to the mount's budget of buffered
// bytes, as open files' buffers are: a write past it fails with ENOSPC,
// and a temporary removed, replaced by a rename or renamed onto meta.json
// gives its bytes back, as does one written after it was unlinked, once
// closed.
func TestScratchFilesCharged(t *testing.T) {
	const budget = 1 << 20
	m, root := mountHeld(t, filestore.Options{Sync: filestore.SyncNone}, fsnode.Options{MaxBuffered: budget})
	newSession(t, m.Store, "s", "Old")
	buffered := func() int { return root.Held()["buffered"] }

	wantOK(t, "a 600 KiB swap file", `open(A[0] + "/.meta.json.swp", "wb").write(b"x" * (600 << 10))`, m.P("s"))
	swap := buffered()
	if swap < 600<<10 || swap > budget {
		t.Fatalf("a 600 KiB temporary: %d bytes buffered", swap)
	}
	wantErrno(t, "ENOSPC", "a second 600 KiB temporary, past the budget",
		`open(A[0] + "/meta.json~", "wb").write(b"x" * (600 << 10))`, m.P("s"))
	run(t, "rm", m.P("s", "meta.json~"))
	if got := buffered(); got != swap {
		t.Errorf("the refused temporary removed: %d bytes buffered, want the swap file's %d", got, swap)
	}

	// Replaced by a small one, the swap file's bytes go back.
	wantOK(t, "a small temporary renamed over the swap file", `
open(A[0] + "/meta.json.tmp", "w").write("{}")
os.rename(A[0] + "/meta.json.tmp", A[0] + "/.meta.json.swp")
`, m.P("s"))
	if got := buffered(); got == 0 || got >= 64<<10 {
		t.Errorf("the swap file replaced by 2 bytes: %d bytes buffered", got)
	}

	// Renamed onto meta.json, it is the document and holds nothing.
	wantOK(t, "a new meta.json renamed over the old", `
doc = json.load(open(A[0] + "/meta.json"))
doc["title"] = "New"
with open(A[0] + "/.meta.json.swp", "w") as f:
    json.dump(doc, f)
os.rename(A[0] + "/.meta.json.swp", A[0] + "/meta.json")
`, m.P("s"))
	if got := buffered(); got != 0 {
		t.Errorf("every temporary gone: %d bytes buffered, want 0", got)
	}
	if s, err := m.Store.Session("s"); err != nil {
		t.Fatal(err)
	} else if meta, err := s.Meta(); err != nil || meta.Title != "New" {
		t.Errorf("title %q (%v), want New", meta.Title, err)
	}

	// Written after it was unlinked, through a descriptor still open: given
	// back once the kernel lets the file go.
	wantOK(t, "a temporary written after its unlink", `
fd = os.open(A[0] + "/meta.json.tmp", os.O_CREAT | os.O_WRONLY)
os.unlink(A[0] + "/meta.json.tmp")
os.write(fd, b"y" * (100 << 10))
os.close(fd)
`, m.P("s"))
	eventually(t, 10*time.Second, "nothing buffered once the unlinked temporary is closed", func() (bool, string) {
		got := buffered()
		return got == 0, fmt.Sprintf("%d bytes buffered", got)
	})
}
