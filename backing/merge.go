package backing

import (
	"errors"
	"fmt"
)

// Merge strategies: what Merge does with the branch merged into.
const (
	// MergeAppend adds the source's messages after the common ancestor
	// to the end of the target.
	MergeAppend = "append"
	// MergeReplace makes the target's history after the common ancestor
	// the source's, keeping the target's previous head as a branch.
	MergeReplace = "replace"
)

// Merged says what a merge did.
type Merged struct {
	// Ancestor is the common ancestor: how many messages (events
	// included) the two branches shared by their fork points.
	Ancestor int
	// Sent is how many of the source's messages were given to the store;
	// Added how many the target grew by: those whose id the target
	// already had were acknowledged and not stored again.
	Sent, Added int
	// Kept names the branch that keeps the target's previous head (replace).
	Kept string
}

// Merge merges branch fromID into branch intoID of s by strategy. Nothing
// is deleted: append only appends, and replace leaves the target's
// previous history, under its id, as the branch named in Merged.Kept.
//
// Append is one AppendID call, so all of it is stored or none. Every
// stored message has an id, and the contract stores an id a branch
// already has only once: merging the same branch again adds only what the
// source gained since, and a merge that failed half-way cannot have
// happened half-way.
//
// The contract has no way to cut a branch, so replace builds the new
// history beside the old one and swaps the names: a fork of the target at
// the common ancestor (no message copied) takes the source's messages
// after the ancestor, then the target is renamed <target>-before-merge-<n>
// and the fork takes the target's name. The old history keeps its id, so
// its children and open handles stay with it; a reader looking the name up
// between the two renames finds no branch of that name for that moment.
//
// The default branch is the root of the tree (it has no parent), and a
// rename does not move that: its history cannot be replaced. A replace
// into it is refused (ErrBusy) unless it has nothing after the ancestor,
// when replacing is appending; its head is then still kept as a branch,
// as every replace does.
func Merge(s Session, fromID, intoID, strategy string) (Merged, error) {
	if strategy != MergeAppend && strategy != MergeReplace {
		return Merged{}, Sentencef(ErrInvalid, "merge strategy %q: it is append or replace", strategy)
	}
	from, err := s.BranchByID(fromID)
	if err != nil {
		return Merged{}, err
	}
	into, err := s.BranchByID(intoID)
	if err != nil {
		return Merged{}, err
	}
	if from.ID == into.ID {
		return Merged{}, Sentencef(ErrInvalid, "branch %q cannot be merged into itself", from.Name)
	}
	var m Merged
	if m.Ancestor, err = CommonAncestor(s, from.ID, into.ID); err != nil {
		return m, err
	}
	msgs, err := sinceAncestor(s, from.ID, m.Ancestor)
	if err != nil {
		return m, err
	}
	m.Sent = len(msgs)
	if strategy == MergeAppend {
		return m, appendAll(s, into.ID, msgs, &m)
	}
	iv, err := s.ViewID(into.ID)
	if err != nil {
		return m, err
	}
	if into.IsDefault() && iv.Len() > m.Ancestor {
		n := fmt.Sprintf("%d messages", iv.Visible()-iv.VisibleBefore(m.Ancestor))
		if n == "1 messages" {
			n = "1 message"
		}
		return m, Sentencef(ErrBusy, "branch %q is the default branch, which cannot be cut: its %s after the common ancestor cannot be replaced (append instead, or replace into another branch)", into.Name, n)
	}
	if m.Kept, err = freeName(s, into.Name+"-before-merge-"); err != nil {
		return m, err
	}
	if !into.IsDefault() {
		return m, replace(s, into, m.Ancestor, msgs, &m)
	}
	// The default branch has nothing after the ancestor: nothing to cut.
	// Its head is kept as every replace keeps it, then the rest appends.
	kept, err := s.Fork(into.ID, Head, m.Kept)
	if err != nil {
		return m, err
	}
	if err := appendAll(s, into.ID, msgs, &m); err != nil {
		return m, errors.Join(err, s.DeleteBranch(kept.ID))
	}
	return m, nil
}

// appendAll appends msgs to branch id in one call and counts in m how
// many the branch grew by.
func appendAll(s Session, id string, msgs [][]byte, m *Merged) error {
	before, err := s.ViewID(id)
	if err != nil {
		return err
	}
	if err := s.AppendID(id, msgs); err != nil {
		return err
	}
	m.Added = grownBy(s, id, before.Len())
	return nil
}

// replace gives into's name a new branch: into's history up to ancestor,
// then msgs. On failure it undoes what it did, so the names are as they
// were; a branch it made and cannot keep goes to the session's trash with
// its messages, as DeleteBranch keeps them.
func replace(s Session, into Branch, ancestor int, msgs [][]byte, m *Merged) error {
	tmp, err := freeName(s, m.Kept+"-new-")
	if err != nil {
		return err
	}
	nb, err := s.Fork(into.ID, ancestor, tmp)
	if err != nil {
		return err
	}
	undo := func(err error) error {
		return errors.Join(err, s.DeleteBranch(nb.ID))
	}
	if err := s.AppendID(nb.ID, msgs); err != nil {
		return undo(err)
	}
	if err := s.RenameBranch(into.ID, m.Kept); err != nil {
		return undo(err)
	}
	if err := s.RenameBranch(nb.ID, into.Name); err != nil {
		return undo(errors.Join(err, s.RenameBranch(into.ID, into.Name)))
	}
	m.Added = grownBy(s, nb.ID, ancestor)
	return nil
}

// sinceAncestor is branch id's messages after the first n, as stored.
func sinceAncestor(s Session, id string, n int) ([][]byte, error) {
	v, err := s.ViewID(id)
	if err != nil {
		return nil, err
	}
	read, err := v.Read(n, v.Len())
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(read))
	for i, r := range read {
		out[i] = r.Raw
	}
	return out, nil
}

// grownBy is how many messages branch id has beyond n; 0 if it cannot be
// read (the merge is done: this only informs).
func grownBy(s Session, id string, n int) int {
	v, err := s.ViewID(id)
	if err != nil {
		return 0
	}
	return v.Len() - n
}

// freeName is prefix followed by the first number from 1 that names no
// branch of s.
func freeName(s Session, prefix string) (string, error) {
	for n := 1; ; n++ {
		name := fmt.Sprintf("%s%d", prefix, n)
		_, err := s.Branch(name)
		if errors.Is(err, ErrNotFound) {
			return name, ValidName(name)
		}
		if err != nil {
			return "", err
		}
	}
}
