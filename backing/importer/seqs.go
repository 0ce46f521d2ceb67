package importer

import (
	"errors"
	"strconv"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// readChunk is how many messages storedSeqs reads at a time: enough to
// amortise a read, few enough that memory does not grow with a session.
const readChunk = 1000

// appendChunk is how many bytes of lines storeMissing appends at a time
// (a variable for tests): each append is one write and one fsync, so a
// few per 10 MB cost nothing next to the writing.
var appendChunk = 4 << 20

// storeMissing stores every line of the split source (main and forks)
// that s does not hold yet, each in its branch, and returns how many. What
// s holds is read from the lines themselves (their source_seq), so an
// import cut short anywhere, or a source that grew, gets exactly the
// lines it lacks: none twice, none lost. A fork is made when it first has
// lines to store, after the branch it forks from; one whose parent
// cannot be made (a rewind reaching back past what an earlier import
// stored) has its new lines go on in the default branch.
func storeMissing(s backing.Session, main [][]byte, forks []Fork) (int, error) {
	forks = parentsFirst(forks)
	branches := [][][]byte{main}
	plans := make([]forkPlan, len(forks))
	for i, f := range forks {
		plans[i] = forkPlan{Name: f.Name, From: f.From, At: f.At}
		branches = append(branches, f.Lines)
	}
	st, err := newStorer(s, plans)
	if err != nil {
		return 0, err
	}
	for pass := 0; pass < 2; pass++ { // what each branch lacks, then the lines
		for b, lines := range branches {
			for _, l := range lines {
				n, ok := SourceSeq(l)
				switch {
				case !ok:
				case pass == 0:
					st.mark(b, n)
				default:
					if err := st.add(b, n, l); err != nil {
						return st.stored, err
					}
				}
			}
		}
	}
	return st.stored, st.finish()
}

// parentsFirst orders forks so that each comes after the one it forks from.
func parentsFirst(forks []Fork) []Fork {
	var out []Fork
	placed := map[string]bool{"": true}
	for len(out) < len(forks) {
		progress := false
		for _, f := range forks {
			if !placed[f.Name] && placed[f.From] {
				out, placed[f.Name], progress = append(out, f), true, true
			}
		}
		if !progress { // a parent that is not among forks: keep the rest as they are
			for _, f := range forks {
				if !placed[f.Name] {
					out, placed[f.Name] = append(out, f), true
				}
			}
		}
	}
	return out
}

// storer stores the lines a session lacks, each in its branch (0 the
// default, b the fork plans[b-1]), as they are added, in appends of at
// most appendChunk bytes: what the store copies to write a batch does not
// grow with the session, and a crash between two leaves what storedSeqs
// finds and the next import completes. The lines come in file order
// (engine.go) or branch by branch (storeMissing); either way a fork's
// lines come after those of its parent it keeps.
type storer struct {
	s       backing.Session
	have    seqSet // the lines s holds
	plans   []forkPlan
	byName  map[string]int
	missing []bool   // whether branch b has a line to store (mark)
	ids     []string // each branch's id in s, once known
	known   []bool
	latest  []time.Time // the latest "ts" among each branch's lines stored
	pending map[string][][]byte
	size    int // bytes pending
	stored  int // lines stored
}

func newStorer(s backing.Session, plans []forkPlan) (*storer, error) {
	have, err := storedSeqs(s)
	if err != nil {
		return nil, err
	}
	n := len(plans) + 1
	st := &storer{s: s, have: have, plans: plans, byName: map[string]int{"": 0},
		missing: make([]bool, n), ids: make([]string, n), known: make([]bool, n),
		latest: make([]time.Time, n), pending: map[string][][]byte{}}
	st.known[0] = true
	for i, p := range plans {
		st.byName[p.Name] = i + 1
	}
	return st, nil
}

// mark notes that branch b has line seq of the source: before any add,
// the storer is told of every line, for which branches have one to store.
func (st *storer) mark(b, seq int) {
	if !st.have.has(seq) {
		st.missing[b] = true
	}
}

// add stores line seq of the source, of branch b, unless s has it.
func (st *storer) add(b, seq int, line []byte) error {
	if st.have.has(seq) {
		return nil
	}
	id, err := st.branch(b)
	if err != nil {
		return err
	}
	if st.size > 0 && st.size+len(line) > appendChunk {
		if err := st.flushAll(); err != nil {
			return err
		}
	}
	st.pending[id] = append(st.pending[id], line)
	st.size += len(line)
	if t, ok := backing.MessageTime(line); ok && t.After(st.latest[b]) {
		st.latest[b] = t
	}
	return nil
}

// branch is the id in s of branch b, made when it is first asked for: a
// fork found by its name, else forked from its parent, else (a parent
// that cannot be made) the default branch.
func (st *storer) branch(b int) (string, error) {
	if st.known[b] {
		return st.ids[b], nil
	}
	st.known[b] = true
	p := st.plans[b-1]
	if got, err := st.s.Branch(p.Name); err == nil {
		st.ids[b] = got.ID
		return got.ID, nil
	} else if !errors.Is(err, backing.ErrNotFound) {
		return "", err
	}
	parent := st.byName[p.From]
	if st.missing[parent] {
		if _, err := st.branch(parent); err != nil { // made before its forks
			return "", err
		}
	}
	from, err := st.s.Branch(p.From)
	if err != nil {
		return "", nil // the default branch
	}
	if st.known[parent] { // what it keeps of its parent, stored first
		if err := st.flush(st.ids[parent]); err != nil {
			return "", err
		}
	}
	fork, err := st.s.Fork(from.ID, p.At, p.Name)
	if err != nil {
		return "", err
	}
	st.ids[b] = fork.ID
	return fork.ID, nil
}

// flush appends the lines pending for branch id.
func (st *storer) flush(id string) error {
	lines := st.pending[id]
	if len(lines) == 0 {
		return nil
	}
	if err := st.s.AppendID(id, lines); err != nil {
		return err
	}
	delete(st.pending, id)
	for _, l := range lines {
		st.size -= len(l)
	}
	st.stored += len(lines)
	return nil
}

func (st *storer) flushAll() error {
	for id := range st.pending {
		if err := st.flush(id); err != nil {
			return err
		}
	}
	return nil
}

// finish appends what is pending and dates each branch that grew by its
// latest line.
func (st *storer) finish() error {
	if err := st.flushAll(); err != nil {
		return err
	}
	for b, t := range st.latest {
		if st.known[b] && st.missing[b] {
			if err := st.s.Backdate(st.ids[b], t); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedSeqs is the set of source lines s holds, in every branch.
func storedSeqs(s backing.Session) (seqSet, error) {
	branches, err := s.Branches()
	if err != nil {
		return nil, err
	}
	var have seqSet
	for _, b := range branches {
		v, err := s.ViewID(b.ID)
		if err != nil {
			return nil, err
		}
		for i := v.Inherited(); i < v.Len(); i += readChunk {
			msgs, err := v.Read(i, min(i+readChunk, v.Len()))
			if err != nil {
				return nil, err
			}
			for _, m := range msgs {
				if n, ok := SourceSeq(m.Raw); ok {
					have.add(n)
				}
			}
		}
	}
	return have, nil
}

// seqSet is a set of line numbers, a bit each: a session of a million
// lines holds 125 kB of it.
type seqSet []uint64

func (s seqSet) has(n int) bool {
	return n >= 0 && n/64 < len(s) && s[n/64]&(1<<(n%64)) != 0
}

func (s *seqSet) add(n int) {
	if n < 0 {
		return
	}
	for n/64 >= len(*s) {
		*s = append(*s, 0)
	}
	(*s)[n/64] |= 1 << (n % 64)
}

// SourceSeq is a stored message's line number in the source it was
// imported from (its "source_seq", see StoreLines); false for a message
// that did not come from a source (one added in sessfs).
func SourceSeq(raw []byte) (int, bool) {
	v := backing.Members(raw, "source_seq")[0]
	n, err := strconv.Atoi(string(v))
	return n, v != nil && err == nil
}
