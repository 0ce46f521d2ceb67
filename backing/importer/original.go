package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/sessfs/sessfs/backing"
)

// Added is what a branch holds that was added in sessfs (not imported),
// which the agent's file, and so an Original, cannot hold.
type Added struct {
	Branch           string // the branch's name
	Default          bool   // whether it is the session's default branch
	Messages, Events int
}

// Original is the source an imported session came from, as its stored
// lines give it back: every stored line that came from it (each branch's
// own, so each once), in the order of the file, with the empty lines the
// import skipped put back where the line numbers leave gaps. It returns
// too, by branch, what was added in sessfs, which the source cannot hold.
// The result is not checked against what the import recorded: see
// Verify. A session with no line from a source is an error.
func Original(s backing.Session) ([]byte, []Added, error) {
	branches, err := s.Branches()
	if err != nil {
		return nil, nil, err
	}
	var added []Added
	type srcLine struct {
		seq  int
		line []byte
	}
	var lines []srcLine
	seen := map[int]bool{}
	for _, b := range branches {
		v, err := s.ViewID(b.ID)
		if err != nil {
			return nil, nil, err
		}
		msgs, err := v.Read(v.Inherited(), v.Len())
		if err != nil {
			return nil, nil, err
		}
		n := Added{Branch: b.Name, Default: b.IsDefault()}
		for _, m := range msgs {
			seq, ok := SourceSeq(m.Raw)
			switch {
			case !ok && storedEvent(m.Raw):
				n.Events++
				continue
			case !ok:
				n.Messages++
				continue
			case seen[seq]:
				continue
			}
			line, err := SourceLine(m.Raw)
			if err != nil {
				return nil, nil, err
			}
			seen[seq] = true
			lines = append(lines, srcLine{seq, line})
		}
		if n.Messages+n.Events > 0 {
			added = append(added, n)
		}
	}
	if len(lines) == 0 {
		return nil, nil, errors.New("this session was not imported: it has no source to give back")
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].seq < lines[j].seq })
	var out bytes.Buffer
	next := 1
	for _, l := range lines {
		for ; next < l.seq; next++ {
			out.WriteByte('\n') // an empty line the import skipped
		}
		out.Write(l.line)
		out.WriteByte('\n')
		// A part of a Gemini document spans lines of its own.
		next = l.seq + 1 + bytes.Count(l.line, []byte("\n"))
	}
	return out.Bytes(), added, nil
}

// storedEvent says whether a stored message is an event (role EventRole).
func storedEvent(raw []byte) bool {
	var m struct {
		Role string `json:"role"`
	}
	json.Unmarshal(raw, &m)
	return m.Role == EventRole
}

// Verify checks data, what Original gave back of session s, against the
// size and hash the import recorded, and returns the source byte for byte:
// data, or data less its final newline for a source whose last line had
// none. A session imported before the hash was recorded gives data as it
// is. Anything else is an error, rather than passed off as the original.
func Verify(s backing.Session, data []byte) ([]byte, error) {
	m, err := s.Meta()
	if err != nil {
		return nil, err
	}
	o, _ := OriginOf(m)
	if o.Bytes == nil {
		return data, nil // imported before the hash was recorded
	}
	for _, d := range [][]byte{data, data[:len(data)-1]} {
		if o.holds(d) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("the stored lines do not give back the source byte for byte "+
		"(%d bytes, the source had %d: a stored line was changed, or the source had lines of only spaces)",
		len(data), *o.Bytes)
}
