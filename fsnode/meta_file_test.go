package fsnode

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// owner is a kernel request's context, from the user who mounted
// (FS.writable).
var owner = &fuse.Context{Caller: fuse.Caller{Owner: fuse.Owner{Uid: uint32(os.Getuid())}, Pid: 1}}

func testSession(t *testing.T) (backing.Store, backing.Session) {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{Title: "a title"})
	if err != nil {
		t.Fatal(err)
	}
	return st, s
}

// Reading meta.json takes nothing of the mount's budget: a cat works
// when the open files hold all of it. Opening it to edit still does.
func TestMetaReadOpenUncharged(t *testing.T) {
	st, s := testSession(t)
	root := New(st, Options{MaxBuffered: 8}) // less than the document
	n := &editFile{base: base{fsys: root.fsys}, s: s, doc: metaDoc{s}}
	fh, _, errno := n.Open(owner, syscall.O_RDONLY)
	if errno != 0 {
		t.Fatalf("open for reading with the budget spent: %v", errno)
	}
	h := fh.(*editHandle)
	want, _, err := n.doc.read()
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]byte, 4096)
	r, errno := h.Read(owner, dest, 0)
	if b, _ := r.Bytes(dest); errno != 0 || string(b) != string(want) {
		t.Errorf("read %q (%v), want %q", b, errno, want)
	}
	if got := root.Held()["buffered"]; got != 0 {
		t.Errorf("a reader's open holds %d bytes of the budget, want 0", got)
	}
	h.Release(owner)
	if _, _, errno := n.Open(owner, syscall.O_RDWR); errno != syscall.ENOSPC {
		t.Errorf("open to edit past the budget: %v, want ENOSPC", errno)
	}
}

// meta.json's mode says what FS.changeable decides, the trash link: 0444
// in the trash even when the document is damaged and says no state.
func TestMetaModeInTrash(t *testing.T) {
	st, s := testSession(t)
	n := &editFile{base: base{fsys: New(st, Options{}).fsys}, s: s, doc: metaDoc{s}}
	mode := func() uint32 {
		var out fuse.AttrOut
		if errno := n.Getattr(owner, nil, &out); errno != 0 {
			t.Fatal(errno)
		}
		return out.Mode & 0o777
	}
	if got := mode(); got != 0o644 {
		t.Errorf("mode %o, want 644", got)
	}
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	if got := mode(); got != 0o444 {
		t.Errorf("mode in the trash %o, want 444", got)
	}
	if err := os.WriteFile(filepath.Join(s.(*filestore.Session).Dir(), "meta.json"), []byte(`{"id":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mode(); got != 0o444 {
		t.Errorf("mode of a damaged meta.json in the trash %o, want 444", got)
	}
	if _, _, errno := n.Open(owner, syscall.O_WRONLY); errno != syscall.EROFS {
		t.Errorf("open to edit in the trash: %v, want EROFS", errno)
	}
}
