package memstore

import (
	"time"

	"github.com/sessfs/sessfs/backing"
)

// AppendID adds messages to a branch, all or none, in order, under the
// store's lock, so never interleaved with another append. A message whose
// own id (given by its writer) the branch has, up to its fork points, or
// that came earlier in the batch, is acknowledged and not stored again.
func (h *Session) AppendID(branchID string, msgs [][]byte) error {
	if len(msgs) == 0 {
		return nil
	}
	t := now()
	lines := make([][]byte, len(msgs))
	kinds := make([]backing.Kind, len(msgs))
	ids := make([]string, len(msgs)) // the writers' ids, "" for none
	for i, raw := range msgs {
		line, id, given, err := backing.Prepare(raw, t, h.st.opts.MaxMessage)
		if err != nil {
			return &backing.MessageError{N: i, Err: err}
		}
		lines[i] = line
		kinds[i], _, _ = backing.Classify(line)
		if given {
			ids[i] = id
		}
	}
	return h.change(func(s *session) ([]backing.Change, error) {
		b, err := s.byID(branchID)
		if err != nil {
			return nil, err
		}
		keep := s.fresh(b, ids)
		if !anyKept(keep) {
			return nil, nil // every message was a retry
		}
		size := 0
		for i := range lines {
			if keep[i] {
				size += len(lines[i])
			}
		}
		if h.st.bytes+int64(size) > h.st.opts.MaxBytes {
			return nil, h.st.errNoSpace(size)
		}
		prompts, first := 0, -1
		for i := range lines {
			if !keep[i] {
				continue
			}
			b.push(lines[i], kinds[i], ids[i])
			if kinds[i].Prompt {
				if first < 0 {
					first = i
				}
				prompts++
			}
		}
		h.st.bytes += int64(size)
		b.mtime = t
		cs := []backing.Change{{Kind: backing.Appended, Session: s.id, Branch: b.b.ID, Len: b.inherited + len(b.lines)}}
		if first >= 0 && b.b.IsDefault() && s.autoTitle(lines[first], len(b.marks.Prompts)-prompts) {
			cs = append(cs, backing.Change{Kind: backing.MetaChanged, Session: s.id})
		}
		return cs, nil
	})
}

func anyKept(keep []bool) bool {
	for _, k := range keep {
		if k {
			return true
		}
	}
	return false
}

// fresh says which messages of a batch to store: those with no id of
// their writer's, and those whose id is neither in b's ancestry (b's own
// messages, each ancestor's up to the fork point) nor earlier in the batch.
func (s *session) fresh(b *branch, ids []string) []bool {
	keep := make([]bool, len(ids))
	chain := s.chain(b)
	seen := map[string]bool{}
	for i, id := range ids {
		if id == "" {
			keep[i] = true
			continue
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		keep[i] = true
		for _, sp := range chain {
			if at, ok := sp.b.ids[id]; ok && at < sp.n {
				keep[i] = false
				break
			}
		}
	}
	return keep
}

// autoTitle gives an untitled session the title of its first prompt, as
// the file engine does, so that a session made by mkdir is listed by what
// it is about: only the first prompt of the default branch (before is how
// many prompts it had before this append), and only while the title is
// empty. It reports whether it changed the meta.
func (s *session) autoTitle(line []byte, before int) bool {
	if s.titled {
		return false
	}
	m, err := s.decode()
	if err != nil {
		return false
	}
	if m.Title != "" || before > 0 { // set, or cleared by the user since
		s.titled = true
		return false
	}
	title := backing.TitleOf(backing.PromptText(line), backing.TitleMax)
	if title == "" {
		return false
	}
	m.Title, m.Updated = title, now()
	if s.put(m) != nil {
		return false
	}
	s.titled = true
	return true
}

// Backdate sets a branch's last activity back to t, for an import; it
// never moves it forward.
func (h *Session) Backdate(branchID string, t time.Time) error {
	return h.change(func(s *session) ([]backing.Change, error) {
		b, err := s.byID(branchID)
		if err != nil || !t.Before(b.mtime) {
			return nil, err
		}
		b.mtime = t
		return []backing.Change{{Kind: backing.Appended, Session: s.id, Branch: b.b.ID, Len: b.inherited + len(b.lines)}}, nil
	})
}
