package fsnode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// shownMeta is meta.json as the mount shows it, decoded.
func shownMeta(t *testing.T, k *kernel, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(k.catFile(path, 4096), &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// An edit of meta.json is buffered in its open file: written in pieces,
// at any offset, read back and stat'ed through that file, invisible to
// the store and to other readers until close, which replaces the
// document; the fields the store owns keep its values.
func TestMetaEditBuffered(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	before, _ := s.MetaBytes()
	m0, _ := s.Meta()

	h := k.mustOpen("s/meta.json", syscall.O_WRONLY)
	if _, errno := k.setattr("s/meta.json", 0, truncIn(0)); errno != 0 { // O_TRUNC
		t.Fatal(errno)
	}
	doc := `{"id":"` + s.ID() + `","name":"ignored","title":"edited in pieces","tags":["x","y"],"mine":{"deep":[1,2,3]}}` + "\n"
	// Written out of order, as a writer with pwrite might.
	pieces := []struct{ from, to int }{{20, 45}, {0, 20}, {45, 60}, {60, len(doc)}}
	for i, p := range pieces {
		if n, errno := h.write(doc[p.from:p.to], int64(p.from)); errno != 0 || n != uint32(p.to-p.from) {
			t.Fatalf("write %d: %d, %v", i, n, errno)
		}
		if i == 0 {
			// A hole before the first piece reads as zeros.
			if b, _ := h.read(0, 20); !bytes.Equal(b, make([]byte, 20)) {
				t.Errorf("the hole reads %q", b)
			}
		}
		if now, _ := s.MetaBytes(); !bytes.Equal(now, before) {
			t.Fatalf("write %d reached the store before close", i)
		}
	}
	if b, _ := h.read(0, 4096); string(b) != doc {
		t.Errorf("the handle reads %q, want %q", b, doc)
	}
	if a, _ := k.statNode(h.node, h.fh); a.Size != uint64(len(doc)) {
		t.Errorf("fstat: %d, want %d", a.Size, len(doc))
	}
	// Another open reads the stored document, whole.
	if got := k.catFile("s/meta.json", 7); !bytes.Equal(got, before) {
		t.Errorf("a reader during the edit: %q, want the stored %q", got, before)
	}
	if errno := h.close(); errno != 0 {
		t.Fatalf("close: %v", errno)
	}
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "edited in pieces" || m.Name != "s" || m.ID != m0.ID || !m.Created.Equal(m0.Created) || strings.Join(m.Tags, ",") != "x,y" {
		t.Errorf("stored: title %q name %q tags %v", m.Title, m.Name, m.Tags)
	}
	got := shownMeta(t, k, "s/meta.json")
	if mine, _ := json.Marshal(got["mine"]); string(mine) != `{"deep":[1,2,3]}` || got["name"] != "s" {
		t.Errorf("meta.json after the edit: %v", got)
	}
	if k.root.Held()["buffered"] != 0 {
		t.Errorf("%d bytes still held after release", k.root.Held()["buffered"])
	}
}

// A write that completes an invalid document fails at once with EINVAL
// (not an object, another id, not UTF-8) and leaves the buffer as it
// was; one left incomplete fails at close with EINVAL; either way the
// store keeps its document. fsync commits as close does; saving the
// document unchanged changes nothing, not even its time.
func TestMetaEditInvalid(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	before, _ := s.MetaBytes()
	for _, bad := range []string{`[1,2]` + "\n", `"a string"`, `{"id":"another"}`, `{"id":"` + s.ID() + "\",\"title\":\"\xff\xfe\"}"} {
		h := k.mustOpen("s/meta.json", syscall.O_WRONLY)
		k.setattr("s/meta.json", 0, truncIn(0))
		if _, errno := h.write(bad, 0); errno != syscall.EINVAL {
			t.Errorf("write of %q: %v, want EINVAL", bad, errno)
		}
		if b, _ := h.read(0, 4096); len(b) != 0 {
			t.Errorf("after the refused write of %q the buffer holds %q", bad, b)
		}
		// What is left is the empty document O_TRUNC made: no JSON
		// object either, so close fails too, and nothing is stored.
		if errno := h.close(); errno != syscall.EINVAL {
			t.Errorf("close after the refused %q: %v, want EINVAL", bad, errno)
		}
	}
	h := k.mustOpen("s/meta.json", syscall.O_RDWR)
	if _, errno := h.write(`{"id":`, 0); errno != 0 { // incomplete: taken
		t.Errorf("an incomplete write: %v", errno)
	}
	if errno := h.fsync(); errno != syscall.EINVAL {
		t.Errorf("fsync of an incomplete document: %v, want EINVAL", errno)
	}
	h.close()
	// Two values are no whole JSON value: taken as a save in progress,
	// and refused at close.
	h = k.mustOpen("s/meta.json", syscall.O_RDWR)
	k.setattr("s/meta.json", 0, truncIn(0))
	if _, errno := h.write(`{"id":"`+s.ID()+`"} {}`, 0); errno != 0 {
		t.Errorf("a write of two values: %v", errno)
	}
	if errno := h.close(); errno != syscall.EINVAL {
		t.Errorf("close of two values: %v, want EINVAL", errno)
	}
	if now, _ := s.MetaBytes(); !bytes.Equal(now, before) {
		t.Errorf("a refused edit changed the store:\n%s", now)
	}

	// fsync stores a valid document; the next close has nothing to do.
	h = k.mustOpen("s/meta.json", syscall.O_RDWR)
	k.setattr("s/meta.json", 0, truncIn(0))
	if _, errno := h.write(`{"id":"`+s.ID()+`","title":"by fsync"}`, 0); errno != 0 {
		t.Fatal(errno)
	}
	if errno := h.fsync(); errno != 0 {
		t.Fatalf("fsync: %v", errno)
	}
	if m, _ := s.Meta(); m.Title != "by fsync" {
		t.Errorf("title %q after fsync", m.Title)
	}
	// Reads through the handle now show what was stored.
	stored, _ := s.MetaBytes()
	if b, _ := h.read(0, 1<<16); !bytes.Equal(b, stored) {
		t.Errorf("the handle reads %q after fsync, want the stored %q", b, stored)
	}
	h.close()

	// Saved unchanged: no new "updated", no new time.
	mtime, _ := s.MetaModTime()
	h = k.mustOpen("s/meta.json", syscall.O_RDWR)
	if _, errno := h.write(string(stored), 0); errno != 0 {
		t.Fatal(errno)
	}
	if errno := h.close(); errno != 0 {
		t.Fatal(errno)
	}
	if now, _ := s.MetaBytes(); !bytes.Equal(now, stored) {
		t.Errorf("an unchanged save changed the document")
	}
	if now, _ := s.MetaModTime(); !now.Equal(mtime) {
		t.Errorf("an unchanged save moved the time")
	}
}

// A document over 1 MiB fails with EFBIG at the write and again at close,
// and nothing changes; starting over (truncate to 0) clears it.
func TestMetaEditTooLarge(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	h := k.mustOpen("s/meta.json", syscall.O_WRONLY)
	k.setattr("s/meta.json", 0, truncIn(0))
	big := `{"id":"` + s.ID() + `","pad":"` + strings.Repeat("x", maxEdit) + `"}`
	if _, errno := h.write(big[:1000], 0); errno != 0 {
		t.Fatal(errno)
	}
	if _, errno := h.write(big[1000:], 1000); errno != syscall.EFBIG {
		t.Errorf("write past 1 MiB: %v, want EFBIG", errno)
	}
	if errno := h.flush(); errno != syscall.EFBIG {
		t.Errorf("close after EFBIG: %v, want EFBIG", errno)
	}
	if _, errno := k.setattrNode(h.node, h.fh, truncIn(0)); errno != 0 {
		t.Fatal(errno)
	}
	if _, errno := h.write(`{"id":"`+s.ID()+`","title":"small again"}`, 0); errno != 0 {
		t.Fatal(errno)
	}
	if errno := h.close(); errno != 0 {
		t.Errorf("close after starting over: %v", errno)
	}
	if m, _ := s.Meta(); m.Title != "small again" {
		t.Errorf("title %q", m.Title)
	}
	if held := k.root.Held()["buffered"]; held != 0 {
		t.Errorf("%d bytes held after release", held)
	}
}

// meta.json of a session whose document the store cannot parse is shown
// as its bytes, with their size, and a valid document saved over it mends
// it.
func TestMetaDamagedShown(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	_ = k.node("s/meta.json")
	damaged := []byte(`{"id":"` + s.ID() + `","title":`)
	if err := writeMetaRaw(s, damaged); err != nil {
		t.Fatal(err)
	}
	if got := k.catFile("s/meta.json", 4096); !bytes.Equal(got, damaged) {
		t.Errorf("a damaged meta.json reads %q, want its bytes", got)
	}
	if a, _ := k.stat("s/meta.json"); a.Size != uint64(len(damaged)) {
		t.Errorf("its size %d, want %d", a.Size, len(damaged))
	}
	// Mended through the mount: a valid document saved over it replaces it.
	h := k.mustOpen("s/meta.json", syscall.O_WRONLY|syscall.O_TRUNC)
	doc := `{"id":"` + s.ID() + `","title":"mended"}`
	if _, errno := h.write(doc, 0); errno != 0 {
		t.Fatalf("write: %v", errno)
	}
	if errno := h.close(); errno != 0 {
		t.Fatalf("close of the mended document: %v", errno)
	}
	if m, err := s.Meta(); err != nil || m.Title != "mended" || m.Name != "s" {
		t.Errorf("after the mend: %+v, %v", m, err)
	}
}

// writeMetaRaw puts doc in s's meta.json as a hand edit (or damage) would.
func writeMetaRaw(s backing.Session, doc []byte) error {
	return os.WriteFile(filepath.Join(s.(*filestore.Session).Dir(), "meta.json"), doc, 0o644)
}
