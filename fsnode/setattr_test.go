package fsnode

import (
	"bytes"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// The setattrs chmod, chown, truncate and touch send.
var (
	chmodIn = fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_MODE, Mode: 0o600}}
	chownIn = fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_UID | fuse.FATTR_GID}}
	touchIn = fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_ATIME | fuse.FATTR_MTIME | fuse.FATTR_ATIME_NOW | fuse.FATTR_MTIME_NOW}}
)

func truncIn(size uint64) fuse.SetAttrIn {
	return fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_SIZE, Size: size}}
}

// Generated files take no setattr at all: chmod, chown, truncate and
// utimes fail with EPERM, and the file is as it was.
func TestSetattrGenerated(t *testing.T) {
	st, s := richSession(t)
	k := newKernel(t, st, Options{})
	for _, p := range []string{
		"s/transcript.md", "s/transcript.html", "s/transcript.redacted.md", "s/messages.jsonl", "s/export.json",
		"s/branches/main/info.json", "s/branches/alt/transcript.md", "s/turns/1/transcript.md", "s/turns/2/messages.jsonl",
	} {
		before := k.catFile(p, 1<<20)
		for what, in := range map[string]fuse.SetAttrIn{"chmod": chmodIn, "chown": chownIn, "truncate": truncIn(0), "truncate to 10": truncIn(10), "touch": touchIn} {
			if _, errno := k.setattr(p, 0, in); errno != syscall.EPERM {
				t.Errorf("%s of %s: %v, want EPERM", what, p, errno)
			}
		}
		if after := k.catFile(p, 1<<20); !bytes.Equal(before, after) {
			t.Errorf("%s changed under refused setattrs", p)
		}
	}
	_ = s
	// Folders refuse them too (refusing), the session's and the root's views.
	for _, p := range []string{"s", "s/branches", "s/branches/main", "s/turns", "s/turns/1", "archive", "trash"} {
		if _, errno := k.setattr(p, 0, chmodIn); errno != syscall.EPERM {
			t.Errorf("chmod of %s: %v, want EPERM", p, errno)
		}
	}
}

// append takes a truncation to zero (`echo x > append` opens with
// O_TRUNC) and touch, which change nothing; any other size, chmod and
// chown fail with EPERM. Refused before all else on a read-only mount
// (EROFS), for another user (EACCES), and in the trash (EROFS).
func TestSetattrAppend(t *testing.T) {
	st, s := richSession(t)
	k := newKernel(t, st, Options{})
	v, _ := s.ViewID("")
	n := v.Len()
	for what, c := range map[string]struct {
		in    fuse.SetAttrIn
		errno syscall.Errno
	}{
		"truncate to 0": {truncIn(0), 0},
		"touch":         {touchIn, 0},
		"truncate to 1": {truncIn(1), syscall.EPERM},
		"chmod":         {chmodIn, syscall.EPERM},
		"chown":         {chownIn, syscall.EPERM},
		"size and mode": {fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_SIZE | fuse.FATTR_MODE, Mode: 0o600}}, syscall.EPERM},
	} {
		for _, p := range []string{"s/append", "s/branches/alt/append"} {
			a, errno := k.setattr(p, 0, c.in)
			if errno != c.errno {
				t.Errorf("%s of %s: %v, want %v", what, p, errno, c.errno)
			}
			if errno == 0 && (a.Mode != syscall.S_IFREG|0o200 || a.Size != 0) {
				t.Errorf("%s of %s: mode %o size %d, want 0200 and 0", what, p, a.Mode, a.Size)
			}
		}
	}
	// Through an open handle, as open(O_TRUNC) and ftruncate send it.
	h := k.mustOpen("s/append", syscall.O_WRONLY)
	if _, errno := k.setattr("s/append", h.fh, truncIn(0)); errno != 0 {
		t.Errorf("ftruncate(0) of an open append: %v", errno)
	}
	h.close()
	if v, _ := s.ViewID(""); v.Len() != n {
		t.Errorf("setattrs of append added %d messages", v.Len()-n)
	}

	other := newKernel(t, st, Options{})
	other.uid++
	if _, errno := other.setattr("s/append", 0, truncIn(0)); errno != syscall.EACCES {
		t.Errorf("truncate by another user: %v, want EACCES", errno)
	}
	ro := newKernel(t, st, Options{ReadOnly: true})
	if _, errno := ro.setattr("s/append", 0, touchIn); errno != syscall.EROFS {
		t.Errorf("touch on a read-only mount: %v, want EROFS", errno)
	}
	if _, errno := ro.open("s/append", syscall.O_WRONLY); errno != syscall.EROFS {
		t.Errorf("open to write on a read-only mount: %v, want EROFS", errno)
	}
	id := k.node("s/append")
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	if _, errno := k.setattrNode(id, 0, truncIn(0)); errno != syscall.EROFS {
		t.Errorf("truncate in the trash (node known from before): %v, want EROFS", errno)
	}
}

// meta.json: chmod and chown fail with EPERM; touch succeeds and changes
// nothing; truncate(2) by path, which has no open file to buffer in, takes
// only the document's own size (EINVAL else); a size-0 setattr right after
// an open for writing by the same process is open(O_TRUNC)'s and empties
// that handle's buffer; ftruncate through a handle sets its buffer's size.
func TestSetattrMeta(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	doc, err := s.MetaBytes()
	if err != nil {
		t.Fatal(err)
	}
	mtime, _ := s.MetaModTime()
	for what, c := range map[string]struct {
		in    fuse.SetAttrIn
		errno syscall.Errno
	}{
		"chmod":              {chmodIn, syscall.EPERM},
		"chown":              {chownIn, syscall.EPERM},
		"touch":              {touchIn, 0},
		"truncate to 0":      {truncIn(0), syscall.EINVAL},
		"truncate to 5":      {truncIn(5), syscall.EINVAL},
		"truncate, own size": {truncIn(uint64(len(doc))), 0},
	} {
		a, errno := k.setattr("s/meta.json", 0, c.in)
		if errno != c.errno {
			t.Errorf("%s of meta.json: %v, want %v", what, errno, c.errno)
		}
		if errno == 0 && (a.Size != uint64(len(doc)) || a.Mode != syscall.S_IFREG|0o644) {
			t.Errorf("%s of meta.json: size %d mode %o, want %d and 0644", what, a.Size, a.Mode, len(doc))
		}
	}
	if now, _ := s.MetaBytes(); !bytes.Equal(now, doc) {
		t.Errorf("setattrs changed meta.json:\n%s\nwas\n%s", now, doc)
	}
	if now, _ := s.MetaModTime(); !now.Equal(mtime) {
		t.Errorf("touch moved meta.json's time from %v to %v", mtime, now)
	}

	// open(O_TRUNC): the kernel opens without the flag, then truncates by
	// path. Another process's size-0 truncate is not its.
	h := k.mustOpen("s/meta.json", syscall.O_WRONLY)
	defer h.release()
	other := *k
	other.pid = 2
	if _, errno := other.setattr("s/meta.json", 0, truncIn(0)); errno != syscall.EINVAL {
		t.Errorf("truncate to 0 by another process: %v, want EINVAL", errno)
	}
	if a, _ := k.statNode(h.node, h.fh); a.Size != uint64(len(doc)) {
		t.Errorf("open for writing: buffer of %d bytes, want the document's %d", a.Size, len(doc))
	}
	if _, errno := k.setattr("s/meta.json", 0, truncIn(0)); errno != 0 {
		t.Errorf("O_TRUNC's truncate: %v", errno)
	}
	if b, _ := h.read(0, 4096); len(b) != 0 {
		t.Errorf("after O_TRUNC the handle reads %q", b)
	}
	// A stat without a handle is answered through the open one (go-fuse
	// picks the first open file, as the kernel passes none): the edit's
	// size. The store's document is unchanged until close.
	if a, _ := k.stat("s/meta.json"); a.Size != 0 {
		t.Errorf("stat of meta.json while emptied by its writer: %d, want 0", a.Size)
	}
	if now, _ := s.MetaBytes(); !bytes.Equal(now, doc) {
		t.Errorf("O_TRUNC changed the stored document before close")
	}
	good := `{"id":"` + s.ID() + `","title":"truncated and rewritten"}`
	if _, errno := h.write(good+"   ", 0); errno != 0 {
		t.Fatalf("write: %v", errno)
	}
	// Once written, a size-0 setattr by path is no O_TRUNC of this handle.
	if _, errno := k.setattr("s/meta.json", 0, truncIn(0)); errno != syscall.EINVAL {
		t.Errorf("truncate by path after a write: %v, want EINVAL", errno)
	}
	// ftruncate through the handle: to a size that leaves an invalid
	// whole document is refused, and the buffer kept.
	if _, errno := k.setattr("s/meta.json", h.fh, truncIn(2)); errno != 0 {
		t.Errorf("ftruncate to an incomplete document: %v", errno)
	}
	if _, errno := h.write(good[2:]+"   ", 2); errno != 0 {
		t.Fatalf("rewrite: %v", errno)
	}
	if a, errno := k.setattr("s/meta.json", h.fh, truncIn(uint64(len(good)))); errno != 0 || a.Size != uint64(len(good)) {
		t.Errorf("ftruncate to the document: %v, size %d", errno, a.Size)
	}
	if errno := h.flush(); errno != 0 {
		t.Fatalf("close: %v", errno)
	}
	if m, _ := s.Meta(); m.Title != "truncated and rewritten" {
		t.Errorf("title %q after the edit", m.Title)
	}
	if _, errno := k.setattr("s/meta.json", h.fh, chmodIn); errno != syscall.EPERM {
		t.Errorf("fchmod: %v, want EPERM", errno)
	}
}

// In the trash and on a read-only mount meta.json takes no setattr, not
// even a touch, and opens to write fail with EROFS; another user gets
// EACCES.
func TestSetattrMetaRefused(t *testing.T) {
	st, _ := testSession(t)
	ro := newKernel(t, st, Options{ReadOnly: true})
	if _, errno := ro.setattr("s/meta.json", 0, touchIn); errno != syscall.EROFS {
		t.Errorf("touch on a read-only mount: %v, want EROFS", errno)
	}
	k := newKernel(t, st, Options{})
	other := *k
	other.uid++
	if _, errno := other.setattr("s/meta.json", 0, touchIn); errno != syscall.EACCES {
		t.Errorf("touch by another user: %v, want EACCES", errno)
	}
	if _, errno := other.open("s/meta.json", syscall.O_RDWR); errno != syscall.EACCES {
		t.Errorf("open to write by another user: %v, want EACCES", errno)
	}
	if h, errno := other.open("s/meta.json", syscall.O_RDONLY); errno != 0 {
		t.Errorf("open to read by another user: %v", errno)
	} else {
		h.release()
	}
	id := k.node("s/meta.json")
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	if _, errno := k.setattrNode(id, 0, touchIn); errno != syscall.EROFS {
		t.Errorf("touch in the trash: %v, want EROFS", errno)
	}
	if _, errno := k.setattrNode(id, 0, truncIn(0)); errno != syscall.EROFS {
		t.Errorf("truncate in the trash: %v, want EROFS", errno)
	}
	if a, _ := k.statNode(id, 0); a.Mode != syscall.S_IFREG|0o444 {
		t.Errorf("mode in the trash %o, want 0444", a.Mode)
	}
}
