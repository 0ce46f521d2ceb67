package memstore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sessfs/sessfs/backing"
)

// branch is one branch and its own messages; the store's lock guards it.
// Its slices only grow and never change below their length, so a view
// keeps a prefix of them without a copy.
type branch struct {
	b         backing.Branch // ParentOffset: how many of the parent's own messages it keeps
	inherited int            // messages of its ancestry in all
	lines     [][]byte       // its own messages, as Prepare made them
	kinds     []backing.Kind
	marks     backing.Marks
	ids       map[string]int // the ids writers gave its own messages → position
	bytes     int64
	mtime     time.Time // its own messages' last change
}

// push adds a prepared message, of kind k, with the id its writer gave
// ("" for none).
func (b *branch) push(line []byte, k backing.Kind, id string) {
	i := len(b.lines)
	b.lines = append(b.lines, line)
	b.kinds = append(b.kinds, k)
	b.marks.Push(i, k, func(j int) backing.Kind { return b.kinds[j] })
	if id != "" {
		if b.ids == nil {
			b.ids = map[string]int{}
		}
		if _, ok := b.ids[id]; !ok {
			b.ids[id] = i
		}
	}
	b.bytes += int64(len(line))
}

// span is the first n own messages of a branch.
type span struct {
	b *branch
	n int
}

// chain is b's ancestry, b first: each branch with how many of its own
// messages b reads.
func (s *session) chain(b *branch) []span {
	out := []span{{b, len(b.lines)}}
	for cur := b; !cur.b.IsDefault(); {
		p := s.branches[cur.b.Parent] // a parent with children is never deleted
		out = append(out, span{p, int(cur.b.ParentOffset)})
		cur = p
	}
	return out
}

// byID is branch id ("" the default one).
func (s *session) byID(id string) (*branch, error) {
	if id == "" {
		id = s.main
	}
	if b, ok := s.branches[id]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
}

// byName is the branch named name ("" the default one).
func (s *session) byName(name string) (*branch, error) {
	if name == "" {
		return s.byID("")
	}
	for _, b := range s.branches {
		if b.b.Name == name {
			return b, nil
		}
	}
	return nil, fmt.Errorf("branch %q: %w", name, backing.ErrNotFound)
}

// Branches lists the branches, in backing.SortBranches's order.
func (h *Session) Branches() ([]backing.Branch, error) {
	var out []backing.Branch
	err := h.read(func(s *session) error {
		for _, b := range s.branches {
			out = append(out, b.b)
		}
		return nil
	})
	backing.SortBranches(out)
	return out, err
}

// BadBranches is empty: memory holds no branch it could not use.
func (h *Session) BadBranches() ([]backing.BadBranch, error) { return nil, nil }

// Branch finds a branch by name, "" the default one.
func (h *Session) Branch(name string) (backing.Branch, error) {
	var out backing.Branch
	err := h.read(func(s *session) error {
		b, err := s.byName(name)
		if err == nil {
			out = b.b
		}
		return err
	})
	return out, err
}

// BranchByID finds a branch by id, "" the default one.
func (h *Session) BranchByID(id string) (backing.Branch, error) {
	var out backing.Branch
	err := h.read(func(s *session) error {
		b, err := s.byID(id)
		if err == nil {
			out = b.b
		}
		return err
	})
	return out, err
}

// Fork makes branch name from branch fromID, keeping its first at
// messages (backing.Head: all of them): one record, whatever the
// history's length. Its parent is the branch whose own messages hold the
// last one kept, so it depends on no more history than it shows.
func (h *Session) Fork(fromID string, at int, name string) (backing.Branch, error) {
	if err := backing.ValidName(name); err != nil {
		return backing.Branch{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return backing.Branch{}, err
	}
	var out backing.Branch
	err = h.change(func(s *session) ([]backing.Change, error) {
		src, err := s.byID(fromID)
		if err != nil {
			return nil, err
		}
		if _, err := s.byName(name); err == nil {
			return nil, fmt.Errorf("branch %q: %w", name, backing.ErrExist)
		}
		parent, keep, err := s.forkPoint(src, at)
		if err != nil {
			return nil, err
		}
		t := now()
		b := &branch{b: backing.Branch{ID: id.String(), Name: name, Parent: parent.b.ID, ParentOffset: int64(keep), Created: t},
			inherited: parent.inherited + keep, mtime: t}
		s.branches[b.b.ID] = b
		out = b.b
		return []backing.Change{{Kind: backing.BranchesChanged, Session: s.id, Branch: b.b.ID}}, nil
	})
	return out, err
}

// forkPoint is where a fork of src keeping its first at messages leaves
// its ancestry: the branch whose own messages hold message at-1 and how
// many of them it keeps (the root and 0 for at 0).
func (s *session) forkPoint(src *branch, at int) (*branch, int, error) {
	if at == backing.Head {
		return src, len(src.lines), nil
	}
	total := src.inherited + len(src.lines)
	if at < 0 || at > total {
		return nil, 0, backing.Sentencef(backing.ErrInvalid, "fork point %d: branch %q has %s",
			at, src.b.Name, backing.Plural(total, "message"))
	}
	chain := s.chain(src)
	if at == 0 {
		return chain[len(chain)-1].b, 0, nil
	}
	for _, sp := range chain {
		if at > sp.b.inherited {
			return sp.b, at - sp.b.inherited, nil
		}
	}
	return chain[len(chain)-1].b, at, nil
}

// RenameBranch renames a branch, never over another branch's name.
func (h *Session) RenameBranch(id, name string) error {
	if err := backing.ValidName(name); err != nil {
		return err
	}
	return h.change(func(s *session) ([]backing.Change, error) {
		b, err := s.byID(id)
		if err != nil || id == "" {
			return nil, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
		}
		if other, err := s.byName(name); err == nil && other != b {
			return nil, fmt.Errorf("branch %q: %w", name, backing.ErrExist)
		}
		b.b.Name = name
		return []backing.Change{{Kind: backing.BranchesChanged, Session: s.id, Branch: id}}, nil
	})
}

// DeleteBranch removes a branch with no children, and its messages with
// it: memory keeps no trash of branches.
func (h *Session) DeleteBranch(id string) error {
	return h.change(func(s *session) ([]backing.Change, error) {
		b, err := s.byID(id)
		if err != nil || id == "" {
			return nil, fmt.Errorf("branch id %q: %w", id, backing.ErrNotFound)
		}
		if b.b.IsDefault() {
			return nil, fmt.Errorf("branch %q: %w", b.b.Name, backing.ErrBusy)
		}
		var kids []string
		for _, c := range s.branches {
			if c.b.Parent == b.b.ID {
				kids = append(kids, c.b.Name)
			}
		}
		if len(kids) > 0 {
			slices.Sort(kids)
			return nil, fmt.Errorf("branch %q: %w: %s", b.b.Name, backing.ErrNotEmpty, strings.Join(kids, ", "))
		}
		delete(s.branches, id)
		h.st.bytes -= b.bytes
		return []backing.Change{{Kind: backing.BranchesChanged, Session: s.id, Branch: id}}, nil
	})
}
