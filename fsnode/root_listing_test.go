package fsnode

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// lookupCounting counts the store's lookups of a session by name.
type lookupCounting struct {
	backing.Store
	n atomic.Int64
}

func (c *lookupCounting) Lookup(name string) (backing.Session, string, error) {
	c.n.Add(1)
	return c.Store.Lookup(name)
}

// ls -l of the root (READDIRPLUS) reads each session's name link once:
// the lookup of each entry takes the handle its listing read. Each entry
// is still what a lookup by name gives (integration's ls tests).
func TestRootListingLooksUpOnce(t *testing.T) {
	st := newStore(t)
	const n = 5
	for i := range n {
		s, _, err := st.Create(fmt.Sprintf("s%d", i), backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AppendID("", conversation(1)); err != nil {
			t.Fatal(err)
		}
	}
	cs := &lookupCounting{Store: st}
	k := newKernel(t, cs, Options{})
	h := k.header(fuse.FUSE_ROOT_ID)
	var open fuse.OpenOut
	if s := k.raw.OpenDir(nil, &fuse.OpenIn{InHeader: h}, &open); s != fuse.OK {
		t.Fatalf("opendir: %v", s)
	}
	list := fuse.NewDirEntryList(make([]byte, 64<<10), 0)
	if s := k.raw.ReadDirPlus(nil, &fuse.ReadIn{InHeader: h, Fh: open.Fh, Size: 64 << 10}, list); s != fuse.OK {
		t.Fatalf("readdirplus: %v", s)
	}
	k.raw.ReleaseDir(&fuse.ReleaseIn{InHeader: h, Fh: open.Fh})
	if got := cs.n.Load(); got != n {
		t.Errorf("ls -l of %d sessions looked %d names up, want %d", n, got, n)
	}
	// Without the listing's handles, each entry's lookup read its link
	// again: the same count through a lookup by name.
	if _, errno := k.stat("s0"); errno != 0 || cs.n.Load() != n+1 {
		t.Errorf("stat s0 after ls -l: %v, %d lookups in all", errno, cs.n.Load())
	}
}
