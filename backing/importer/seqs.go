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
	have, err := storedSeqs(s)
	if err != nil {
		return 0, err
	}
	missing := func(lines [][]byte) [][]byte {
		var out [][]byte
		for _, l := range lines {
			if n, ok := SourceSeq(l); ok && !have[n] {
				out = append(out, l)
			}
		}
		return out
	}
	stored := 0
	put := func(branchID string, lines [][]byte) error {
		if len(lines) == 0 {
			return nil
		}
		// In appends of at most appendChunk bytes: what the store copies
		// to write a batch does not grow with the session, and a crash
		// between two leaves what storedSeqs finds and the next import
		// completes.
		for from := 0; from < len(lines); {
			to, size := from, 0
			for to < len(lines) && (to == from || size+len(lines[to]) <= appendChunk) {
				size += len(lines[to])
				to++
			}
			if err := s.AppendID(branchID, lines[from:to]); err != nil {
				return err
			}
			stored += to - from
			from = to
		}
		return s.Backdate(branchID, lastTS(lines))
	}
	if err := put("", missing(main)); err != nil {
		return stored, err
	}
	for _, f := range parentsFirst(forks) {
		lines := missing(f.Lines)
		if len(lines) == 0 {
			continue
		}
		b, err := s.Branch(f.Name)
		if errors.Is(err, backing.ErrNotFound) {
			if from, ferr := s.Branch(f.From); ferr != nil {
				b = backing.Branch{} // the default branch
			} else if b, err = s.Fork(from.ID, f.At, f.Name); err != nil {
				return stored, err
			}
		} else if err != nil {
			return stored, err
		}
		if err := put(b.ID, lines); err != nil {
			return stored, err
		}
	}
	return stored, nil
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

// storedSeqs is the set of source lines s holds, in every branch.
func storedSeqs(s backing.Session) (map[int]bool, error) {
	branches, err := s.Branches()
	if err != nil {
		return nil, err
	}
	have := map[int]bool{}
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
					have[n] = true
				}
			}
		}
	}
	return have, nil
}

// SourceSeq is a stored message's line number in the source it was
// imported from (its "source_seq", see StoreLines); false for a message
// that did not come from a source (one added in sessfs).
func SourceSeq(raw []byte) (int, bool) {
	v := backing.Members(raw, "source_seq")[0]
	n, err := strconv.Atoi(string(v))
	return n, v != nil && err == nil
}

// lastTS is the latest time among stored lines' "ts", zero when none has
// one.
func lastTS(lines [][]byte) time.Time {
	var last time.Time
	for _, l := range lines {
		if t, ok := backing.MessageTime(l); ok && t.After(last) {
			last = t
		}
	}
	return last
}
