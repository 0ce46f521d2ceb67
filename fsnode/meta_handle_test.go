package fsnode

import (
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// A write that completes an invalid document fails with EINVAL and leaves
// the buffer as it was; an incomplete document is taken; a valid one is
// stored at close.
func TestMetaHandleWriteCheck(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{Title: "old"})
	if err != nil {
		t.Fatal(err)
	}
	n := &editFile{base: base{fsys: New(st, Options{}).fsys}, s: s, doc: metaDoc{s}}
	ctx := owner
	fh, _, errno := n.Open(ctx, syscall.O_WRONLY)
	if errno != 0 {
		t.Fatal(errno)
	}
	h := fh.(*editHandle)
	if errno := h.truncate(0); errno != 0 {
		t.Fatal(errno)
	}
	id := s.ID()
	good := `{"id":"` + id + `","title":"new","x":{"a":1}}`
	for _, c := range []struct {
		data  string
		off   int64
		errno syscall.Errno
		buf   string
	}{
		{`[1]`, 0, syscall.EINVAL, ``},
		{`{"id":"` + id + "\",\"title\":\"\xff\"}", 0, syscall.EINVAL, ``}, // invalid UTF-8
		{`{"id":"other"}`, 0, syscall.EINVAL, ``},
		{good[:10], 0, 0, good[:10]},
		{good[10 : strings.Index(good, "}")+1], 10, 0, good[:strings.Index(good, "}")+1]},      // ends in "}": not complete
		{`{"title":"no id"}`, 0, 0, `{"title":"no id"}` + good[17:strings.Index(good, "}")+1]}, // the old tail follows: not complete
		{`{"title":"no id","pad":"` + strings.Repeat("x", 60) + `"}`, 0, syscall.EINVAL, `{"title":"no id"}` + good[17:strings.Index(good, "}")+1]}, // whole and refused: put back
		{good[:strings.Index(good, "}")+1], 0, 0, good[:strings.Index(good, "}")+1]},
		{good[strings.Index(good, "}")+1:], int64(strings.Index(good, "}") + 1), 0, good},
	} {
		_, errno := h.Write(ctx, []byte(c.data), c.off)
		if errno != c.errno || string(h.buf.data) != c.buf {
			t.Errorf("write %q at %d: %v, buffer %q; want %v, %q", c.data, c.off, errno, h.buf.data, c.errno, c.buf)
		}
	}
	if errno := h.Flush(ctx); errno != 0 {
		t.Fatalf("close: %v", errno)
	}
	if m, err := s.Meta(); err != nil || m.Title != "new" {
		t.Errorf("stored title %q (%v), want new", m.Title, err)
	}
}
