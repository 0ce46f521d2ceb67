package backing

// What a session, a branch and a turn spent, read through the contract
// into a Tally. A session's usage is every message stored in any of its
// branches, each once: a branch's own messages are those from
// v.Inherited() to v.Len(), the rest being its ancestors', so a fork adds
// only what is appended to it and never lowers what was spent. A branch's
// usage is its view, ancestry resolved; a turn's is its TurnRange. A
// branch that is deleted takes its usage with it.

// readBatch is how many messages one Read returns at most while a tally
// is read, so that a long branch is never held in memory whole.
const readBatch = 1024

// branchRead is how far a branch has been read into a tally, and the
// Stream that carries its model in effect.
type branchRead struct {
	n  int
	st *Stream
}

// update reads messages [max(r.n, from), v.Len()) of v.
func (r *branchRead) update(v View, from int, fn func(Spend)) error {
	if err := readInto(v, max(r.n, from), v.Len(), r.st, fn); err != nil {
		return err
	}
	r.n = v.Len()
	return nil
}

func readInto(v View, from, to int, st *Stream, fn func(Spend)) error {
	for from < to {
		end := min(from+readBatch, to)
		msgs, err := v.Read(from, end)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if sp := st.Add(m.Raw); fn != nil && !sp.Usage.IsZero() {
				fn(sp)
			}
		}
		from = end
	}
	return nil
}

// SessionUsage is what a session spent, kept up to date: each Update reads
// only what was stored since the one before. It is not safe for
// concurrent use.
type SessionUsage struct {
	t        *Tally
	fallback string
	branches map[string]*branchRead // by branch id
}

// Tally is what the session spent as of the last Update.
func (su *SessionUsage) Tally() *Tally {
	if su.t == nil {
		return NewTally()
	}
	return su.t
}

// Update reads into the tally the messages s stored since the last
// Update, in every branch, and calls fn, when not nil, with what each
// message that spent added. The session's meta.json model stands for the
// model of usage no message names one for. If a branch read before is
// gone, the tally starts over.
func (su *SessionUsage) Update(s Session, fn func(Spend)) error {
	list, err := s.Branches()
	if err != nil {
		return err
	}
	if su.t == nil || su.gone(list) {
		su.t, su.branches = NewTally(), map[string]*branchRead{}
		su.fallback = ""
		if m, err := s.Meta(); err == nil { // a meta it cannot read names no model
			su.fallback = m.Model
		}
	}
	for _, b := range list {
		v, err := s.ViewID(b.ID)
		if err != nil {
			return err
		}
		r := su.branches[b.ID]
		if r == nil {
			r = &branchRead{st: su.t.Stream(su.fallback)}
			su.branches[b.ID] = r
		}
		if err := r.update(v, v.Inherited(), fn); err != nil {
			return err
		}
	}
	return nil
}

// gone reports whether a branch read before is not in list.
func (su *SessionUsage) gone(list []Branch) bool {
	ids := make(map[string]bool, len(list))
	for _, b := range list {
		ids[b.ID] = true
	}
	for id := range su.branches {
		if !ids[id] {
			return true
		}
	}
	return false
}

// UsageOfSession is what s spent, read whole.
func UsageOfSession(s Session) (*Tally, error) {
	var su SessionUsage
	if err := su.Update(s, nil); err != nil {
		return nil, err
	}
	return su.Tally(), nil
}

// ViewUsage is what one branch's view spent, kept up to date as the
// branch grows: each Update reads only the messages appended since the one
// before. It is not safe for concurrent use.
type ViewUsage struct {
	t      *Tally
	branch string
	r      branchRead
}

// Update reads v's messages appended since the last Update. fallback is
// the model of usage no message names one for (the session's meta.json
// model). A view of another branch, or one shorter than the last, starts
// the tally over.
func (vu *ViewUsage) Update(v View, fallback string) error {
	if vu.t == nil || v.Branch().ID != vu.branch || v.Len() < vu.r.n {
		vu.t, vu.branch = NewTally(), v.Branch().ID
		vu.r = branchRead{st: vu.t.Stream(fallback)}
	}
	return vu.r.update(v, 0, nil)
}

// Tally is what the view spent as of the last Update.
func (vu *ViewUsage) Tally() *Tally {
	if vu.t == nil {
		return NewTally()
	}
	return vu.t
}

// UsageOfRange is what messages [from, to) of v spent; fallback is the
// model of usage no message of the range names one for.
func UsageOfRange(v View, from, to int, fallback string) (*Tally, error) {
	t := NewTally()
	if err := readInto(v, from, to, t.Stream(fallback), nil); err != nil {
		return nil, err
	}
	return t, nil
}
