package fsnode

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// Big pieces read a request at a time come out whole and in order, and
// the mount keeps one of them at most, however many files read them, and
// none once the kernel has forgotten the files.
func TestBigPieceOnePerMount(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	root := New(st, Options{})
	fsys := root.fsys
	var files []*renderedFile
	for k := range 2 {
		s, _, err := st.Create(fmt.Sprintf("s%d", k), backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		big := func(c string) []byte {
			return fmt.Appendf(nil, `{"role":"user","content":%q}`, strings.Repeat(c+" ", 200<<10))
		}
		if err := s.AppendID("", [][]byte{big("a"), []byte(`{"role":"assistant","content":"small"}`), big("b"), big("c")}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []format{formatMarkdown, formatJSONL} {
			files = append(files, newRenderedFile(fsys, branchRef{s: s}, f, 0))
		}
	}
	held := func() int { return root.Held()["bigPiece"] }
	for _, n := range files {
		sp, err := n.span(true)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := sp.v.Read(0, sp.v.Len())
		if err != nil {
			t.Fatal(err)
		}
		want := append([]byte(nil), sp.head...)
		var ends backing.Endings
		for _, m := range msgs {
			ends.Add(m)
			want = append(want, n.format.render(m, endingBefore(&ends, m))...)
		}
		want = append(want, sp.tail...)
		var got []byte
		for off := int64(0); off < sp.size(); off += 128 << 10 {
			dest := make([]byte, 128<<10)
			r, errno := n.Read(nil, nil, dest, off)
			if errno != 0 {
				t.Fatal(errno)
			}
			b, _ := r.Bytes(dest)
			got = append(got, b...)
			if h := held(); h != 1 {
				t.Fatalf("%d big pieces kept after a read of one, want 1", h)
			}
		}
		if !bytes.Equal(got, want) {
			t.Errorf("format %d: read %d bytes that differ from the rendering's %d", n.format, len(got), len(want))
		}
	}
	for _, n := range files {
		n.OnForget()
	}
	if h := held(); h != 0 {
		t.Errorf("a big piece kept after every rendering was forgotten")
	}
}

// A request inside the kept piece is served from it, without reading its
// message from the log again: a change made in place under the index
// (which only a repair would make) does not show until the piece goes.
func TestBigPieceServedWithoutReading(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{fmt.Appendf(nil, `{"role":"user","content":%q}`, strings.Repeat("a ", 300<<10))}); err != nil {
		t.Fatal(err)
	}
	n := newRenderedFile(New(st, Options{}).fsys, branchRef{s: s}, formatMarkdown, 0)
	read := func(off int64) []byte {
		dest := make([]byte, 128<<10)
		r, errno := n.Read(nil, nil, dest, off)
		if errno != 0 {
			t.Fatal(errno)
		}
		b, _ := r.Bytes(dest)
		return b
	}
	read(0)
	rewriteLog(t, s, "a", "z")
	if b := read(256 << 10); !bytes.Contains(b, []byte("a a")) || bytes.Contains(b, []byte("z")) {
		t.Errorf("a request inside the kept piece read the message again: %.40q…", b)
	}
}

// A rendering read through its own handles (transcript.html,
// export.json) keeps no frame in its node: the kernel holds a node of
// every file it looked up, and transcript.html's head alone is 6 KiB.
// One read through the page cache keeps the frame it was told of.
func TestFrameKeptOnlyForPageCache(t *testing.T) {
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	fsys := New(st, Options{}).fsys
	for _, f := range []format{formatHTML, formatJSON, formatMarkdown} {
		n := newRenderedFile(fsys, branchRef{s: s}, f, 0)
		// What attr does, but for watching the branch: the node is in
		// no mount, where a change told later could not be passed on.
		sp, err := n.span(true)
		if err != nil {
			t.Fatal(err)
		}
		n.changed(sp)
		n.mu.Lock()
		kept, headLen := len(n.head)+len(n.tail), n.headLen
		n.mu.Unlock()
		if headLen == 0 {
			t.Errorf("format %d: the head's length is not kept", f)
		}
		if n.endMoves() && kept != 0 {
			t.Errorf("format %d: its node keeps %d bytes of frame", f, kept)
		}
		if !n.endMoves() && kept == 0 {
			t.Errorf("format %d: its node keeps no frame for reads through the page cache", f)
		}
		// A read through a handle serves the whole file still.
		fh, _, errno := n.Open(nil, 0)
		if errno != 0 {
			t.Fatal(errno)
		}
		dest := make([]byte, sp.size()+10)
		r, errno := n.Read(nil, fh, dest, 0)
		if errno != 0 {
			t.Fatal(errno)
		}
		if b, _ := r.Bytes(dest); int64(len(b)) != sp.size() {
			t.Errorf("format %d: read %d bytes of a file of %d", f, len(b), sp.size())
		}
	}
}
