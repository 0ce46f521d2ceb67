package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/sessfs/sessfs/backing"
)

// An import reads a source in pieces, never whole: a session of gigabytes
// imports in the memory of its longest line and of a few bytes a line.
// readSource reads it once for its size and hash; decodeStream decodes
// it, handing each line's store message on as soon as it is made; the
// engine (engine.go) decodes it once for what the session is and how its
// lines split into branches (splitter), and once more to store the lines,
// unless they were few enough to keep from the first time (keepBudget).

// keepBudget is how many bytes of store lines an import keeps from its
// first decode of a source rather than decode it again to store them (a
// variable for tests): all of most sources, a bounded part of none.
var keepBudget = 16 << 20

// readPiece is how many bytes readSource reads at a time (a variable for
// tests).
var readPiece = 256 << 10

// sourceFile is a source file read in pieces: the bytes of its complete
// lines (all but a last line the agent is still writing: tornTail), their
// hash, and the hash of a prefix of them.
type sourceFile struct {
	f    *os.File
	size int64  // the bytes of complete lines
	sum  string // their SHA-256, hex
	// prefix and prefixSum are the size and hash of what an earlier
	// import read of the source, when asked for by readSource; -1 when not.
	prefix    int64
	prefixSum string
}

// lines is a reader of the source's complete lines, from the start.
func (sf *sourceFile) lines() io.Reader { return io.NewSectionReader(sf.f, 0, sf.size) }

// sumOf is the hash of the first n bytes of the source, n at most size.
func (sf *sourceFile) sumOf(n int64) (string, error) {
	switch n {
	case sf.size:
		return sf.sum, nil
	case sf.prefix:
		return sf.prefixSum, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(sf.f, 0, n)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readSource reads the file f once, for where its complete lines end and
// their hash, and the hash of its first prefix bytes when prefix ≥ 0
// (what an import read of it before, to check it only grew).
func readSource(f *os.File, prefix int64) (*sourceFile, error) {
	sf := &sourceFile{f: f, prefix: -1}
	h := sha256.New()
	var off int64
	write := func(p []byte) {
		if prefix >= off && prefix <= off+int64(len(p)) {
			h.Write(p[:prefix-off])
			sf.prefix, sf.prefixSum = prefix, hex.EncodeToString(h.Sum(nil))
			p = p[prefix-off:]
			off = prefix
		}
		h.Write(p)
		off += int64(len(p))
	}
	var (
		buf           = make([]byte, readPiece)
		lastNL int64  = -1 // offset of the last '\n' read
		atNL   []byte      // h's state right after it, for a last line cut short
	)
	for {
		n, err := f.ReadAt(buf, off)
		chunk := buf[:n]
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			write(chunk[:i+1])
			lastNL = off - 1
			var merr error
			if atNL, merr = h.(encoding.BinaryMarshaler).MarshalBinary(); merr != nil {
				return nil, merr
			}
			chunk = chunk[i+1:]
		}
		write(chunk)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sf.size, sf.sum = off, hex.EncodeToString(h.Sum(nil))
	torn, err := tornTail(f, lastNL+1, off)
	if err != nil || !torn {
		return sf, err
	}
	// The last line is cut short: the source ends at the newline before.
	sf.size = lastNL + 1
	if lastNL < 0 {
		atNL = nil // nothing before it: the hash of no bytes
	}
	back := sha256.New()
	if atNL != nil {
		if err := back.(encoding.BinaryUnmarshaler).UnmarshalBinary(atNL); err != nil {
			return nil, err
		}
	}
	sf.sum = hex.EncodeToString(back.Sum(nil))
	if sf.prefix > sf.size {
		sf.prefix, sf.prefixSum = -1, ""
	}
	return sf, nil
}

// tornTail says whether the bytes of f from start to end, its last line
// (no newline after it), are one the agent is still writing: neither
// blank nor JSON, in a file that is not one JSON document over several
// lines (Gemini CLI's older format). The next import takes it whole.
func tornTail(f *os.File, start, end int64) (bool, error) {
	if start >= end {
		return false, nil
	}
	tail := make([]byte, end-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return false, err
	}
	if len(bytes.TrimSpace(tail)) == 0 || validJSON(tail) {
		return false, nil
	}
	return !oneDocument(io.NewSectionReader(f, 0, end)), nil
}

// oneDocument says whether r is one JSON value, read a token at a time:
// a file of JSON lines is told from a document by its second line.
func oneDocument(r io.Reader) bool {
	dec := json.NewDecoder(r)
	for depth := 0; ; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			break
		}
	}
	_, err := dec.Token()
	return err == io.EOF
}

// streamer is a decoder whose finished messages decodeStream may take
// away as it goes: Claude Code's and Codex's, whose sources are the big
// ones. Gemini CLI's stay whole in memory (a document is decoded as one,
// and the CLI rewrites its files whole, which keeps them small).
type streamer interface {
	lineDecoder
	// final is how many of the session's first messages the decoder
	// will not change again.
	final() int
	// dropped tells it its first k messages were taken away.
	dropped(k int)
}

// noder is a decoder that knows each line's place in Claude Code's tree
// as it decodes it, so that an import splits a source into branches
// without reading each message it made back (nodeOfStored).
type noder interface {
	lastNode() treeNode // that of the line just decoded
}

// decodeStream decodes r as Decode does, but hands each line's store
// message (what StoreLines makes of it) and line number to emit, in file
// order, as soon as the decoder is done with it, rather than keeping it.
// The Session it returns has what the source says of itself, but no
// messages or events. When node is not nil and the decoder is a noder,
// node is called with each line's place in the tree, in file order, as
// the line is decoded.
func decodeStream(r io.Reader, f Format, node func(treeNode), emit func(seq int, stored []byte) error) (*Session, error) {
	d, err := newDecoder(f)
	if err != nil {
		return nil, err
	}
	sd, ok := d.(streamer)
	if !ok {
		s, err := Decode(r, f)
		if err != nil {
			return nil, err
		}
		if err := s.eachStoreLine(emit); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		return metaOnly(s), nil
	}
	nd, _ := d.(noder)
	if node == nil {
		nd = nil
	}
	err = eachLine(r, func(n int, line []byte) error {
		if err := decodeLine(sd, n, line); err != nil {
			return err
		}
		if nd != nil {
			node(nd.lastNode())
		}
		return takeFinal(sd, sd.final(), emit)
	})
	if err == nil {
		s := sd.finish()
		err = takeFinal(sd, len(s.Messages), emit)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	s := sd.session()
	s.Format = f
	return metaOnly(s), nil
}

// takeFinal emits the first k messages of d's session and the events before
// the next, in file order, and takes them away from it.
func takeFinal(d streamer, k int, emit func(int, []byte) error) error {
	s := d.session()
	e := len(s.Events)
	if k < len(s.Messages) {
		e = sort.SearchInts(s.EventLine, s.MessageLine[k])
	}
	if k == 0 && e == 0 {
		return nil
	}
	part := Session{Messages: s.Messages[:k], MessageLine: s.MessageLine[:k], Events: s.Events[:e], EventLine: s.EventLine[:e]}
	if err := part.eachStoreLine(emit); err != nil {
		return err
	}
	s.Messages, s.MessageLine = dropFirst(s.Messages, k), dropFirst(s.MessageLine, k)
	s.Events, s.EventLine, s.EventAt = dropFirst(s.Events, e), dropFirst(s.EventLine, e), dropFirst(s.EventAt, e)
	d.dropped(k)
	return nil
}

// dropFirst is x less its first k elements, in x's array, whose freed
// end is cleared so that what it held can be collected.
func dropFirst[T any](x []T, k int) []T {
	n := copy(x, x[k:])
	clear(x[n:])
	return x[:n]
}

// metaOnly is s without its messages and events.
func metaOnly(s *Session) *Session {
	m := *s
	m.Messages, m.Events, m.EventAt, m.MessageLine, m.EventLine = nil, nil, nil, nil, nil
	return &m
}

// linePlan is what an import's first decode of a source keeps of its
// lines: each line's number and branch, by its place in file order, the
// forks, and the lines themselves while they fit keepBudget.
type linePlan struct {
	seqs     []int32
	branchOf []int32 // nil: every line in the default branch
	forks    []forkPlan
	kept     [][]byte // every line's store message, unless over
	over     bool
}

func (p *linePlan) branch(i int) int {
	if p.branchOf == nil {
		return 0
	}
	return int(p.branchOf[i])
}

// planSource decodes source sf of format f for what the session is and
// where each of its lines goes (Branches, a line at a time).
func planSource(sf *sourceFile, f Format) (*Session, *linePlan, error) {
	p := &linePlan{}
	var sp *splitter
	if f == ClaudeCode { // Codex and Gemini CLI sessions are linear
		sp = &splitter{}
	}
	var node func(treeNode)
	if sp != nil {
		node = sp.add
	}
	size := 0
	src, err := decodeStream(sf.lines(), f, node, func(seq int, stored []byte) error {
		p.seqs = append(p.seqs, int32(seq))
		if size += len(stored); size > keepBudget {
			p.kept, p.over = nil, true
		} else {
			p.kept = append(p.kept, stored)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if sp != nil {
		if int(sp.n) != len(p.seqs) {
			return nil, nil, fmt.Errorf("importer: %d lines decoded, %d placed in the tree", len(p.seqs), sp.n)
		}
		p.branchOf, p.forks = sp.split()
	}
	return src, p, nil
}

// storeSource stores the lines of source sf that session s lacks, as plan
// p places them, and returns how many: the lines p kept, else the source
// decoded again.
func storeSource(s backing.Session, sf *sourceFile, f Format, p *linePlan) (int, error) {
	st, err := newStorer(s, p.forks)
	if err != nil {
		return 0, err
	}
	for i, seq := range p.seqs {
		st.mark(p.branch(i), int(seq))
	}
	if !p.over {
		for i, l := range p.kept {
			if err := st.add(p.branch(i), int(p.seqs[i]), l); err != nil {
				return st.stored, err
			}
		}
		return st.stored, st.finish()
	}
	i := 0
	_, err = decodeStream(sf.lines(), f, nil, func(seq int, stored []byte) error {
		if i >= len(p.seqs) || int(p.seqs[i]) != seq {
			return errors.New("the source changed while it was imported: import it again")
		}
		i++
		return st.add(p.branch(i-1), seq, stored)
	})
	if err != nil {
		return st.stored, err
	}
	return st.stored, st.finish()
}
