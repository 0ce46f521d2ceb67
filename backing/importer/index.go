package importer

import (
	"os"
	"path/filepath"

	"github.com/sessfs/sessfs/backing"
)

// sourceKey identifies a source: its format and the agent's id for the
// session (a subagent's file carries its session's id, so its name too).
// A source without an id is known by its file's name, as before, and so
// is a Gemini CLI file, by both: a --resume may start a new file under
// the session's id.
type sourceKey struct {
	format   Format
	id       string
	file     string // the file's base name, when id is ""
	subagent string // "agent-<id>" for a subagent's own file
}

func keyOf(format Format, id, path string) sourceKey {
	k := sourceKey{format: format, id: id, subagent: subagentOf(path)}
	if id == "" || format == Gemini {
		k.file = filepath.Base(path)
	}
	return k
}

// indexed is what the index keeps of an imported session.
type indexed struct {
	id     string // the session's id in the store
	parent string // meta.json's parent
	forked string // the source's forked_from_id, for linkForks
	path   string // where the source was last found
	gone   bool   // whether a sync found it deleted
	// stamp is the size and time of the file whose bytes are all stored,
	// zero when unknown (see unchanged).
	stamp quickStamp
	// noMessages says the source held no message when first imported:
	// a Gemini CLI --resume's left-behind file (linkResumeStarts).
	noMessages bool
}

// load reads the source of every active and archived session once. A
// session in the trash is not found: importing its source again makes a
// new one, and the one in the trash stays as it was.
func (r *Importer) load() error {
	if r.index != nil {
		return nil
	}
	names, err := r.st.Names()
	if err != nil {
		return err
	}
	archived, err := r.st.ArchivedNames()
	if err != nil {
		return err
	}
	r.index = map[sourceKey]*indexed{}
	r.byPath = map[string]*indexed{}
	for _, name := range append(names, archived...) {
		s, err := r.st.Session(name)
		if err != nil {
			continue // gone meanwhile
		}
		m, err := s.Meta()
		if err != nil {
			continue // unreadable: fsck says so; an import cannot use it
		}
		r.add(s.ID(), m)
	}
	return nil
}

// add indexes session id, whose meta.json is m, if it was imported and
// not replaced by a session of what its source became. Of two sessions of
// one source (a copy restored from the trash), the first one stays.
func (r *Importer) add(id string, m backing.Meta) {
	o, ok := OriginOf(m)
	if !ok || o.Format == "" || o.ReplacedBy != "" {
		return
	}
	if k := o.key(); r.index[k] == nil {
		e := &indexed{id: id, parent: m.Parent, forked: o.Forked, gone: o.Gone != "", noMessages: o.NoMessages, stamp: o.quickStamp()}
		r.index[k] = e
		r.setPath(e, o.Path)
	}
}

// find is the session imported from source k, and its meta.json, or nil
// when there is none (not imported, or since moved to the trash).
func (r *Importer) find(k sourceKey) (backing.Session, backing.Meta, error) {
	if err := r.load(); err != nil {
		return nil, backing.Meta{}, err
	}
	e := r.index[k]
	if e == nil {
		return nil, backing.Meta{}, nil
	}
	s, err := r.st.SessionByID(e.id)
	if err == nil {
		m, err := s.Meta()
		if err == nil && m.State != backing.StateTrashed {
			return s, m, nil
		}
	}
	delete(r.index, k)
	r.setPath(e, "")
	return nil, backing.Meta{}, nil
}

// linkForks sets the parent of every imported session that came from
// another: a Codex session forked from one (forked_from_id), a Claude Code
// subagent's file from its session, a Gemini CLI --resume's left-behind
// file from its session (which it also archives: linkResumeStarts). Run
// after each import, so the link is made whichever file comes first.
func (r *Importer) linkForks() error {
	if err := r.load(); err != nil {
		return err
	}
	for k, e := range r.index {
		from := e.forked
		if k.subagent != "" {
			from = k.id // a subagent's lines carry its session's id
		}
		if e.parent != "" || from == "" {
			continue
		}
		parent, _, err := r.find(sourceKey{format: k.format, id: from})
		if err != nil {
			return err
		}
		if parent == nil || parent.ID() == e.id {
			continue // not imported (yet)
		}
		s, _, err := r.find(k)
		if err != nil {
			return err
		}
		if s == nil {
			continue // gone meanwhile
		}
		if err := s.SetParent(parent.ID()); err != nil {
			return err
		}
		e.parent = parent.ID()
	}
	return r.linkResumeStarts()
}

// quickStamp is what the quick check compares: a file's size and time.
type quickStamp struct {
	size  int64
	mtime string
}

// quickStamp is the stamp of the file whose bytes o records all stored,
// zero when it records none.
func (o Origin) quickStamp() quickStamp {
	if o.Bytes == nil || !o.Complete || o.MTime == "" {
		return quickStamp{}
	}
	return quickStamp{int64(*o.Bytes), o.MTime}
}

// unchanged is the quick check: whether the file at path, of info fi, is
// the one a session's source records as stored whole, by its size and
// time alone, without reading it; and that session's name.
func (r *Importer) unchanged(path string, fi os.FileInfo) (string, bool, error) {
	if err := r.load(); err != nil {
		return "", false, err
	}
	e := r.byPath[path]
	if e == nil || e.gone || e.stamp != (quickStamp{fi.Size(), fileTime(fi)}) {
		return "", false, nil
	}
	s, err := r.st.SessionByID(e.id)
	if err != nil {
		return "", false, nil
	}
	m, err := s.Meta()
	if err != nil || m.State == backing.StateTrashed {
		return "", false, nil
	}
	return m.Name, true, nil
}

// setPath records that the source of index entry e was last found at path.
func (r *Importer) setPath(e *indexed, path string) {
	if r.byPath[e.path] == e {
		delete(r.byPath, e.path)
	}
	e.path = path
	if path != "" {
		r.byPath[path] = e
	}
}
