package fsnode

import (
	"fmt"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// A branch's piece-offset cache is shared by the renderings of one format
// and dropped when the kernel forgets the last of them, so the caches do
// not grow with every branch ever read.
func TestSizeCacheDroppedOnForget(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	for i := range 10 {
		msgs = append(msgs, fmt.Appendf(nil, `{"role":"user","content":"m%d"}`, i))
	}
	if err := s.AppendID("", msgs); err != nil {
		t.Fatal(err)
	}
	fsys := New(st, Options{}).fsys
	node := func(f format, turn int) *renderedFile {
		return newRenderedFile(fsys, branchRef{s: s}, f, turn)
	}
	caches := func() int {
		fsys.mu.Lock()
		defer fsys.mu.Unlock()
		return len(fsys.sizes)
	}
	whole, turn, html := node(formatMarkdown, 0), node(formatMarkdown, 3), node(formatHTML, 0)
	for _, n := range []*renderedFile{whole, turn, html} {
		if _, err := n.span(true); err != nil {
			t.Fatal(err)
		}
	}
	if got := caches(); got != 2 {
		t.Fatalf("%d caches for two formats of one branch, want 2", got)
	}
	whole.OnForget()
	if got := caches(); got != 2 {
		t.Errorf("a cache went while a turn of the branch still uses it: %d left", got)
	}
	turn.OnForget()
	html.OnForget()
	if got := caches(); got != 0 {
		t.Errorf("%d caches left after every rendering was forgotten, want 0", got)
	}
	// A request after the forget is still answered, and keeps nothing.
	if sp, err := whole.span(false); err != nil || sp.size() == 0 || caches() != 0 {
		t.Errorf("span after forget: %v, size %d, %d caches", err, sp.size(), caches())
	}
}
