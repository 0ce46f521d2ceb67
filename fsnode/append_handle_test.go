package fsnode

import (
	"context"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// The requests of one handle, in order, and the errno each gets: a line
// refused in a later request than it began fails again when its rest is
// re-sent (after a short write), and a line refused in the request it
// began in does not take the next line with it.
func TestAppendHandleRefusedLine(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone, MaxMessage: 200})
	if err != nil {
		t.Fatal(err)
	}
	valid := `{"role":"user","content":"ok"}`
	for _, c := range []struct {
		name  string
		reqs  []string
		errno []syscall.Errno
		want  int // messages stored
	}{
		{"refused in its own request", []string{"{bad}\n", valid + "\n"}, []syscall.Errno{syscall.EINVAL, 0}, 1},
		{"re-sent rest", []string{`{"a":` + "   ", valid + "\n", valid + "\n", valid + "\n"},
			[]syscall.Errno{0, syscall.EINVAL, syscall.EINVAL, 0}, 1},
		{"rest re-sent in pieces", []string{`{"a":`, "   ", valid + "\n", "   ", valid + "\n", valid + "\n"},
			[]syscall.Errno{0, 0, syscall.EINVAL, syscall.EINVAL, syscall.EINVAL, 0}, 1},
		{"ends inside the next line", []string{"{bad}\n{", `"role":"user","content":"x"}` + "\n", valid + "\n"},
			[]syscall.Errno{syscall.EINVAL, syscall.EINVAL, 0}, 1},
		{"too large, newline in the last piece", []string{`{"role":"user","content":"` + strings.Repeat("x", 150), `"}` + "\n", `"}` + "\n", valid + "\n"},
			[]syscall.Errno{0, syscall.EFBIG, syscall.EFBIG, 0}, 1},
		{"too large before its newline", []string{`{"role":"user","content":"` + strings.Repeat("x", 150), strings.Repeat("x", 80), `"}` + "\n", valid + "\n"},
			[]syscall.Errno{0, syscall.EFBIG, syscall.EFBIG, 0}, 1},
	} {
		s, _, err := st.Create(strings.ReplaceAll(c.name, " ", "-"), backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		h := newAppendHandle(New(st, Options{}).fsys, branchRef{s: s})
		for i, r := range c.reqs {
			if _, errno := h.Write(context.Background(), []byte(r), 0); errno != c.errno[i] {
				t.Errorf("%s: request %d %q: errno %v, want %v", c.name, i, r, errno, c.errno[i])
			}
		}
		if errno := h.Flush(context.Background()); errno != 0 {
			t.Errorf("%s: close: %v", c.name, errno)
		}
		if n := count(t, s); n != c.want {
			t.Errorf("%s: %d messages stored, want %d", c.name, n, c.want)
		}
	}
}

// Past the mount's budget a JSON write fails with ENOSPC and leaves the
// handle as it was, so the same bytes can be sent again once another
// handle gives room back; a text message fails until close, which fails
// too, and nothing is appended. Whatever a handle held is given back.
func TestAppendHandleBudget(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	fsys := New(st, Options{MaxBuffered: 256 << 10}).fsys
	ctx := context.Background()
	write := func(h *appendHandle, data string, want syscall.Errno) {
		t.Helper()
		if _, errno := h.Write(ctx, []byte(data), 0); errno != want {
			t.Errorf("write of %d bytes: %v, want %v (%d bytes held)", len(data), errno, want, fsys.budget.inUse())
		}
	}
	line := func(n int) string { return `{"role":"user","content":"` + strings.Repeat("x", n) }
	a, b, c := newAppendHandle(fsys, branchRef{s: s}), newAppendHandle(fsys, branchRef{s: s}), newAppendHandle(fsys, branchRef{s: s})
	write(a, line(200<<10), 0)
	write(b, line(100<<10), syscall.ENOSPC)
	write(c, strings.Repeat("t", 100<<10), syscall.ENOSPC)
	write(c, "more", syscall.ENOSPC)
	write(a, "\"}\n", 0) // a's line is in, and its room given back
	write(b, line(100<<10), 0)
	write(b, "\"}\n", 0)
	if errno := c.Flush(ctx); errno != syscall.ENOSPC {
		t.Errorf("close of the refused text: %v, want ENOSPC", errno)
	}
	for _, h := range []*appendHandle{a, b, c} {
		h.Flush(ctx)
		h.Release(ctx)
	}
	if n := count(t, s); n != 2 {
		t.Errorf("%d messages stored, want 2", n)
	}
	if held := fsys.budget.inUse(); held != 0 {
		t.Errorf("%d bytes still held after release", held)
	}
}
