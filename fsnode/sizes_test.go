package fsnode

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// render is message m's piece in format f, as a read renders it; prev is
// how the turn before m's ended, for its note when it starts a turn.
func (f format) render(m backing.Message, prev backing.Ending) []byte {
	return f.appendPiece(nil, PieceMessage(m, prev), m.Index == 0, nil)
}

// endingBefore is how the turn before m's ended, as ends has read it (the
// branch from its first message to m at least), for m's note.
func endingBefore(ends *backing.Endings, m backing.Message) backing.Ending {
	e, _ := ends.Turn(m.Turn - 1)
	return e
}

// The size caches the kernel's nodes hold are bounded in all: past
// their bound (maxSizeEntries) the least recently used are emptied (the one in
// use never), and an emptied one gives the same sizes and bytes when used
// again.
func TestSizeCachesBounded(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	root := New(st, Options{})
	fsys := root.fsys
	fsys.sizeBound = 100 // before any use: 8 sessions of 44 offsets exceed it
	read := func(n *renderedFile) []byte {
		t.Helper()
		sp, err := n.span(true)
		if err != nil {
			t.Fatal(err)
		}
		b, err := n.readPieces(sp, nil, 0, sp.size())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var files []*renderedFile
	var want [][]byte
	for k := range 8 { // 8 sessions of 8 turns: 44 offsets each
		s, _, err := st.Create(fmt.Sprintf("s%d", k), backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AppendID("", conversation(8)); err != nil {
			t.Fatal(err)
		}
		n := newRenderedFile(fsys, branchRef{s: s}, formatMarkdown, 0)
		files = append(files, n)
		want = append(want, read(n))
		fsys.mu.Lock()
		entries, counted := fsys.sizeEntries, 0
		for _, c := range fsys.sizes {
			counted += c.counted
		}
		fsys.mu.Unlock()
		if entries != counted || entries > fsys.sizeBound+44 {
			t.Errorf("after %d sessions: %d offsets held (caches count %d), bound %d", k+1, entries, counted, fsys.sizeBound)
		}
	}
	fsys.mu.Lock()
	emptied := 0
	for _, c := range fsys.sizes {
		if c.counted == 1 {
			emptied++
		}
	}
	fsys.mu.Unlock()
	if emptied == 0 {
		t.Error("no cache was emptied: 8 × 44 offsets are held under a bound of 100")
	}
	for k, n := range files { // the first ones again, emptied: built again
		if got := read(n); !bytes.Equal(got, want[k]) {
			t.Errorf("session %d read again: %d bytes, want %d", k, len(got), len(want[k]))
		}
	}
	for _, n := range files {
		n.OnForget()
	}
	if got := root.Held()["sizeEntries"]; got != 0 {
		t.Errorf("%d offsets held after every node is forgotten", got)
	}
}

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

// countingSession counts its views' reads of messages, and keeps sizes as
// the session under it does.
type countingSession struct {
	*filestore.Session
	reads *atomic.Int64
}

type countingView struct {
	backing.View
	reads *atomic.Int64
}

func (s countingSession) ViewID(id string) (backing.View, error) {
	v, err := s.Session.ViewID(id)
	if err != nil {
		return nil, err
	}
	return countingView{v, s.reads}, nil
}

func (v countingView) Read(from, to int) ([]backing.Message, error) {
	v.reads.Add(int64(to - from))
	return v.View.Read(from, to)
}

// allPieces is the pieces of every message of v in format f, rendered
// from the first.
func allPieces(t *testing.T, v backing.View, f format) []byte {
	t.Helper()
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	var ends backing.Endings
	var out []byte
	for _, m := range msgs {
		ends.Add(m)
		out = append(out, f.render(m, endingBefore(&ends, m))...)
	}
	return out
}

// conversation is n turns of a prompt with injected context before it, a
// tool call and its result, an answer and a turn_end.
func conversation(n int) [][]byte {
	var msgs [][]byte
	for i := range n {
		msgs = append(msgs,
			fmt.Appendf(nil, `{"role":"user","context":"environment","content":"cwd %d"}`, i),
			fmt.Appendf(nil, `{"role":"user","content":"question %d with key AKIAIOSFODNN7EXAMPLE"}`, i),
			fmt.Appendf(nil, `{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}]}`, i),
			fmt.Appendf(nil, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"a\nb"}]}`, i),
			fmt.Appendf(nil, `{"role":"assistant","content":"answer %d"}`, i))
		if i%3 == 1 { // some turns end, others are cut off
			msgs = append(msgs, []byte(`{"role":"event","content":"","event":"turn_end","data":{}}`))
		}
	}
	return msgs
}

// KeepSizes reads the messages once for all the formats it keeps (the
// first format's pass renders them all: pieceMemo), as much as working
// out one format's sizes reads, not once a format, and keeps the sizes a
// rendering gives.
func TestKeepSizesReadsOnceForAllFormats(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	var ss [2]*filestore.Session
	for i := range ss {
		bs, _, err := st.Create(fmt.Sprint("s", i), backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		ss[i] = bs.(*filestore.Session)
		if err := ss[i].AppendID("", conversation(40)); err != nil {
			t.Fatal(err)
		}
	}
	reads := new(atomic.Int64)
	cv, _ := countingSession{ss[0], reads}.ViewID("")
	if _, err := newSizeCache(sizeKey{}).offsets(nil, ss[0], cv, formatMarkdown); err != nil {
		t.Fatal(err)
	}
	one := reads.Load()
	reads.Store(0)
	if err := KeepSizes(countingSession{ss[1], reads}); err != nil {
		t.Fatal(err)
	}
	if r := reads.Load(); r != one {
		t.Errorf("KeepSizes read %d messages for %d formats; one format's sizes read %d", r, len(keptFormats), one)
	}
	v, _ := ss[1].ViewID("")
	for _, f := range keptFormats {
		reads.Store(0)
		cv, _ := countingSession{ss[1], reads}.ViewID("")
		off, err := newSizeCache(sizeKey{}).offsets(nil, ss[1], cv, f)
		if err != nil {
			t.Fatal(err)
		}
		if want := allPieces(t, v, f); off[len(off)-1] != int64(len(want)) || reads.Load() != 0 {
			t.Errorf("format %s: kept size %d after %d reads, the rendering's %d", f.keptName(), off[len(off)-1], reads.Load(), len(want))
		}
	}
}

// A fresh mount over a store that keeps piece sizes knows a rendering's
// size without reading a message, and serves the same bytes as one that
// renders every message; on a fork too, whose inherited part is its
// parent's kept sizes.
func TestKeptSizesFreshMount(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	bs, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	s := bs.(*filestore.Session)
	if err := s.AppendID("", conversation(40)); err != nil {
		t.Fatal(err)
	}
	main, err := s.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	// A fork after the context of turn 21, before its prompt: that
	// context has the turn's heading in main, not in the fork.
	v, _ := s.ViewID("")
	from, _, _ := v.TurnRange(21)
	fork, err := s.Fork(main.ID, from+1, "f")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(fork.ID, conversation(3)); err != nil {
		t.Fatal(err)
	}
	if err := KeepSizes(s); err != nil {
		t.Fatal(err)
	}
	for _, b := range []backing.Branch{main, fork} {
		for _, f := range keptFormats {
			reads := new(atomic.Int64)
			cs := countingSession{s, reads}
			v, err := cs.ViewID(b.ID)
			if err != nil {
				t.Fatal(err)
			}
			off, err := newSizeCache(sizeKey{}).offsets(nil, cs, v, f)
			if err != nil {
				t.Fatal(err)
			}
			// The fork's inherited context is read again (it is not
			// final in main's kept sizes), and what is before it, back
			// to a prompt.
			if r := reads.Load(); b.ID == main.ID && r != 0 || r > 17 {
				t.Errorf("branch %s, format %s: %d messages read to know the size", b.Name, f.keptName(), r)
			}
			fsys := New(st, Options{}).fsys // a fresh mount
			n := newRenderedFile(fsys, branchRef{s: cs, id: b.ID}, f, 0)
			sp, err := n.span(true)
			if err != nil {
				t.Fatal(err)
			}
			if sp.pieces() != off[len(off)-1] {
				t.Errorf("branch %s, format %s: the mount's size %d, the cache's %d", b.Name, f.keptName(), sp.pieces(), off[len(off)-1])
			}
			want := allPieces(t, sp.v, f)
			if got := sp.pieces(); got != int64(len(want)) {
				t.Errorf("branch %s, format %s: size %d, want %d", b.Name, f.keptName(), got, len(want))
			}
			var got []byte
			for off := int64(0); off < sp.pieces(); off += 100 {
				got, err = n.readPieces(sp, got, off, min(off+100, sp.pieces()))
				if err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(got, want) {
				t.Errorf("branch %s, format %s: read %d bytes unlike the rendering's %d", b.Name, f.keptName(), len(got), len(want))
			}
		}
	}
}

// Injected context at a branch's end takes the heading of the turn of a
// prompt appended after it: the size and bytes a mount serves follow,
// and what it keeps is only final pieces.
func TestSizesContextJoinsNextTurn(t *testing.T) {
	st := newStore(t)
	k := newKernel(t, st, Options{})
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"p1"}`), []byte(`{"role":"assistant","content":"a1"}`), []byte(`{"role":"system","content":"ctx"}`)}); err != nil {
		t.Fatal(err)
	}
	k.stat("s/transcript.md")
	if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"p2"}`)}); err != nil {
		t.Fatal(err)
	}
	k.root.fsys.flush()
	a, _ := k.stat("s/transcript.md")
	got := k.catFile("s/transcript.md", int(a.Size))
	k2 := newKernel(t, st, Options{}) // a fresh mount, with the sizes kept by the first
	b, _ := k2.stat("s/transcript.md")
	want := k2.catFile("s/transcript.md", int(b.Size))
	if !bytes.Equal(got, want) || !bytes.Contains(want, []byte("## Turn 2\n\n**system")) {
		t.Errorf("after a prompt joined the context before it, the mount serves\n%s\nwant\n%s", got, want)
	}
}

// A branch of turns that each end with a typed event and none with a
// turn_end (sessfs event usage, no harness marking turns) asks at every
// turn whether a turn_end came before it, the premise of a cut-off turn.
// The sizes of its transcript, and a read of it from the middle, read
// each message a bounded number of times, not every typed event again
// for each turn.
func TestSizesReadEachTypedEventOnce(t *testing.T) {
	s, msgs := usageTurns(t, 400, true)
	reads := &atomic.Int64{}
	cs := countingSession{s, reads}
	v, err := cs.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	off, err := newSizeCache(sizeKey{}).offsets(nil, cs, v, formatMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	if want := allPieces(t, v, formatMarkdown); off[len(off)-1] != int64(len(want)) {
		t.Errorf("size %d, the pieces rendered from the first make %d", off[len(off)-1], len(want))
	}
	// The sizes read every message, and each turn and the message after
	// it once more for its ending: about 2 × 3 × turns.
	if n := reads.Load() - int64(v.Len()); n > int64(4*len(msgs)) {
		t.Errorf("the sizes of %d messages read %d messages", len(msgs), n+int64(v.Len()))
	}
	reads.Store(0)
	p := NewPieces(v, len(msgs)/2)
	half, err := v.Read(len(msgs)/2, len(msgs))
	if err != nil {
		t.Fatal(err)
	}
	reads.Store(0)
	for _, m := range half {
		if _, err := p.Next(m); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n > int64(4*len(half)+len(msgs)) {
		t.Errorf("the pieces of the second half read %d messages", n)
	}
}

// usageTurns is a session of turns, each a prompt, an answer when answer,
// and a usage event, none with a turn_end; and its lines.
func usageTurns(t *testing.T, turns int, answer bool) (*filestore.Session, [][]byte) {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	for i := range turns {
		msgs = append(msgs, fmt.Appendf(nil, `{"role":"user","content":"q%d"}`, i))
		if answer {
			msgs = append(msgs, fmt.Appendf(nil, `{"role":"assistant","content":"a%d"}`, i))
		}
		msgs = append(msgs, []byte(`{"role":"event","content":"","event":"usage","data":{"input_tokens":1}}`))
	}
	if err := s.AppendID("", msgs); err != nil {
		t.Fatal(err)
	}
	return s.(*filestore.Session), msgs
}
