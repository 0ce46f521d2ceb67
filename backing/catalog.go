package backing

import (
	"cmp"
	"slices"
	"strings"
)

// CatalogQuery is what a catalog lists: the active sessions, or every
// one, narrowed to a group of the views by-project/ and by-tag/ when one
// is set.
type CatalogQuery struct {
	All bool // archived and trashed sessions too
	// Project keeps the sessions whose project, as a group (GroupPath),
	// is this one or below it: "owner" keeps owner/repo and owner/site.
	Project string
	// Tag keeps the sessions with a tag that is, as a group, this one or
	// below it.
	Tag string
}

// Matches reports whether q lists e: the rule every engine's catalog
// follows, however it finds the sessions.
func (q CatalogQuery) Matches(e Entry) bool {
	if !q.All && e.State != StateActive {
		return false
	}
	if q.Project != "" && !InGroup(GroupPath(e.Project), q.Project) {
		return false
	}
	if q.Tag != "" && !slices.ContainsFunc(e.Tags, func(t string) bool { return InGroup(GroupPath(t), q.Tag) }) {
		return false
	}
	return true
}

// InGroup reports whether group g is group of or one below it.
func InGroup(g, of string) bool {
	return g == of || strings.HasPrefix(g, of+"/")
}

// CatalogOf is st's catalog of the sessions q matches, newest activity
// first: its index's (Finder.Catalog) when the engine keeps one, else
// built from List, the same rows read from the sessions themselves. Everything that
// lists many sessions (the mount's views, sessfs ls and last, the
// resolution of a SESSION argument) calls this, so that it is fast where
// the engine has an index and still right where it has none.
//
// The rows built from List leave ByModel empty (summing it reads every
// message of every branch; the index keeps it), and a session that cannot
// be read is listed with its name, id and state alone.
//
// An index that cannot answer (a store on a read-only disk, where it can be
// neither built nor caught up) falls back on List too: a listing is a read,
// and no index fails a read.
func CatalogOf(st Store, q CatalogQuery) ([]Entry, error) {
	if f, ok := st.(Finder); ok {
		if es, err := f.Catalog(q); err == nil {
			return es, nil
		}
	}
	list, err := st.List(q.All)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(list))
	for _, info := range list {
		e := Entry{
			ID: info.ID, Name: info.Name, State: info.State, Title: info.Title,
			Agent: AgentOf(info.Meta), Project: ProjectOf(info.Meta), Tags: info.Tags,
			Created: info.Created, LastActivity: info.LastActivity, Messages: info.Messages,
		}
		if e.State == "" { // meta.json unreadable: the state is where its name is
			e.State = stateOf(st, info, q.All)
		}
		if !q.Matches(e) {
			continue
		}
		if info.Err == nil {
			e.Bytes = storedBytes(st, info.ID)
		}
		out = append(out, e)
	}
	sortRecent(out)
	return out, nil
}

// sortRecent orders a catalog newest activity first, as `ls -t` does;
// sessions active at the same moment by name, so the order is the same
// at every call.
func sortRecent(es []Entry) {
	slices.SortStableFunc(es, func(a, b Entry) int {
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// stateOf is the state of a listed session whose meta cannot say: active
// when only active sessions were listed, else where its name leads to it
// (active or archived), else the trash, whose sessions have no name.
func stateOf(st Store, info SessionInfo, all bool) string {
	if !all {
		return StateActive
	}
	if s, state, err := st.Lookup(info.Name); err == nil && s.ID() == info.ID {
		return state
	}
	return StateTrashed
}

// storedBytes is the stored size of a session's messages: each branch's
// own, which a fork does not copy. What cannot be read counts nothing:
// the listing says how big a session is, fsck what is wrong with it.
func storedBytes(st Store, id string) int64 {
	s, err := st.SessionByID(id)
	if err != nil {
		return 0
	}
	bs, err := s.Branches()
	if err != nil {
		return 0
	}
	var n int64
	for _, b := range bs {
		v, err := s.ViewID(b.ID)
		if err != nil {
			continue
		}
		for i := v.Inherited(); i < v.Len(); i++ {
			n += int64(v.RawLen(i))
		}
	}
	return n
}
