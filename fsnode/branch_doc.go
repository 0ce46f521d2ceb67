package fsnode

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// branchDoc is a document a harness keeps with a branch, tasks.json or
// memory.json (backing.Document), as an editDoc: shown indented, saved
// as an event appended to the branch.
type branchDoc struct {
	ref  branchRef
	kind string // backing.DocTasks or backing.DocMemory
}

// current is the document as stored (compact) and when it was set; the
// session's creation for one never set.
func (d branchDoc) current() ([]byte, time.Time, error) {
	v, err := d.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	doc, set, err := backing.Document(v, d.kind)
	if err == nil && set.IsZero() {
		if m, merr := d.ref.s.Meta(); merr == nil {
			set = m.Created
		}
	}
	return doc, set, err
}

// read is the document indented, as an editor shows it best.
func (d branchDoc) read() ([]byte, time.Time, error) {
	doc, set, err := d.current()
	if err != nil {
		return nil, set, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		return nil, set, err
	}
	b.WriteByte('\n')
	return b.Bytes(), set, nil
}

func (d branchDoc) check(doc []byte) error { return backing.CheckDocument(doc) }

// save appends the event that sets the document, unless it says what the
// document says already (compared compact, so a change of layout alone
// is no change).
func (d branchDoc) save(doc []byte) error {
	line, err := backing.DocumentEvent(d.kind, doc)
	if err != nil {
		return err
	}
	cur, _, err := d.current()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if json.Compact(&b, doc) == nil && bytes.Equal(b.Bytes(), cur) {
		return nil
	}
	v, err := d.ref.view()
	if err != nil {
		return err
	}
	return d.ref.s.AppendID(v.Branch().ID, [][]byte{line})
}
