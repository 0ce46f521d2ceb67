package fsnode

import (
	"bytes"
	"errors"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// metaDoc is a session's meta.json as an editDoc.
type metaDoc struct{ s backing.Session }

// read is the meta as meta.json shows it. One the store cannot parse is
// shown as its bytes, so a person can see it and mend it: a valid
// document saved over it replaces it (backing.EditMeta), as fsck --repair
// would.
func (d metaDoc) read() ([]byte, time.Time, error) {
	mtime, err := d.s.MetaModTime()
	if err != nil {
		return nil, mtime, err
	}
	m, err := d.s.Meta()
	var doc []byte
	switch {
	case errors.Is(err, backing.ErrInvalid):
		doc, err = d.s.MetaBytes()
	case err == nil:
		doc, err = backing.EncodeMeta(m)
	}
	return doc, mtime, err
}

// check is the store's check of an edited meta.json (Session.CheckMeta).
// (backing.EditMeta keeps the fields the store owns whatever the document
// says.)
func (d metaDoc) check(doc []byte) error {
	_, err := d.s.CheckMeta(doc)
	return err
}

func (d metaDoc) save(doc []byte) error {
	if err := d.check(doc); err != nil {
		return err
	}
	if m, err := d.s.Meta(); err == nil {
		if shown, err := backing.EncodeMeta(m); err == nil && bytes.Equal(shown, doc) {
			return nil
		}
	}
	_, err := d.s.EditMeta(doc)
	return err
}
