package backing

import (
	"bytes"
	"errors"
	"fmt"
)

// Copied says what Copy did with one session.
type Copied struct {
	// New is set when the session was made in the destination; otherwise
	// it was there and was brought up to date.
	New bool
	// Branches is how many branches were made (the default one not
	// counted), Messages how many messages were added, events included.
	Branches, Messages int
}

// copyBatch bounds one AppendID of a copy: a branch of any length goes
// across in appends of this many messages or bytes, whichever comes first.
const (
	copyBatch      = 1000
	copyBatchBytes = 8 << 20
)

// Copy copies session src, of another store, into dst under the same id,
// name, meta and branches, each message's stored bytes as they are, so
// that every rendering of it, the original source file included, is the
// same from either store. dst must be a Receiver.
//
// A session dst has already (by id) is brought up to date: each branch
// gets the messages it lacks and each missing branch is made. Histories
// only grow, so a destination branch is taken as a prefix of the source's
// when it forks at the same point, is no longer, and its last message is
// the source's message at that place; a branch that is not is left as it
// is and reported (ErrExist), as is a session in dst's trash (ErrTrashed). The meta
// of a session dst has is dst's: it is copied with the session once.
//
// A copy is not atomic: one cut short leaves in dst a session with fewer
// messages, which the next Copy completes.
func Copy(dst Store, src Session) (Copied, error) {
	var c Copied
	m, err := src.Meta()
	if err != nil {
		return c, err
	}
	to, err := dst.SessionByID(src.ID())
	switch {
	case errors.Is(err, ErrNotFound):
		r, ok := dst.(Receiver)
		if !ok {
			return c, fmt.Errorf("%s cannot take in a session under its id", dst.Location())
		}
		if to, _, err = r.Receive(m); err != nil {
			return c, err
		}
		c.New = true
	case err != nil:
		return c, err
	case to.Trashed():
		return c, Sentencef(ErrTrashed, "session %s is in the trash of %s: restore it there first, or purge it", src.ID(), dst.Location())
	}
	if err := copyBranches(to, src, &c); err != nil {
		return c, err
	}
	if c.New && m.State == StateArchived {
		return c, dst.Archive(m.Name)
	}
	return c, nil
}

// copyBranches copies src's branches into to, each after its parent.
func copyBranches(to, src Session, c *Copied) error {
	branches, err := src.Branches()
	if err != nil {
		return err
	}
	made := map[string]string{} // src branch id → to's
	for len(made) < len(branches) {
		before := len(made)
		for _, b := range branches {
			if _, done := made[b.ID]; done {
				continue
			}
			parent, ready := made[b.Parent]
			if !b.IsDefault() && !ready {
				continue // its parent first
			}
			id, err := copyBranch(to, src, b, parent, c)
			if err != nil {
				return fmt.Errorf("branch %s: %w", b.Name, err)
			}
			made[b.ID] = id
		}
		if len(made) == before {
			return fmt.Errorf("%w: the branches' parents form no tree", ErrInvalid)
		}
	}
	return nil
}

// copyBranch brings the branch of to that matches src's branch b up to
// date, making it (a fork of parent, to's id of b's parent) when to has
// none of its name, and returns its id.
func copyBranch(to, src Session, b Branch, parent string, c *Copied) (string, error) {
	sv, err := src.ViewID(b.ID)
	if err != nil {
		return "", err
	}
	var tb Branch
	if b.IsDefault() {
		if tb, err = to.BranchByID(""); err == nil && tb.Name != b.Name {
			err = to.RenameBranch(tb.ID, b.Name)
		}
	} else if tb, err = to.Branch(b.Name); errors.Is(err, ErrNotFound) {
		tb, err = to.Fork(parent, sv.Inherited(), b.Name)
		c.Branches++
	}
	if err != nil {
		return "", err
	}
	tv, err := to.ViewID(tb.ID)
	if err != nil {
		return "", err
	}
	if err := samePrefix(tv, sv); err != nil {
		return "", err
	}
	n := tv.Len()
	for n < sv.Len() {
		end, size := n, 0
		for end < sv.Len() && end-n < copyBatch && size < copyBatchBytes {
			size += sv.RawLen(end)
			end++
		}
		msgs, err := sv.Read(n, end)
		if err != nil {
			return "", err
		}
		raw := make([][]byte, len(msgs))
		for i, m := range msgs {
			raw[i] = m.Raw
		}
		if err := to.AppendID(tb.ID, raw); err != nil {
			return "", err
		}
		n = end
	}
	added := n - tv.Len()
	if added > 0 {
		if tv, err = to.ViewID(tb.ID); err != nil {
			return "", err
		}
		if tv.Len() != sv.Len() {
			// The destination took some as repeats of ids it had.
			return "", fmt.Errorf("%d messages stored of %d", tv.Len(), sv.Len())
		}
		c.Messages += added
		if err := to.Backdate(tb.ID, sv.ModTime()); err != nil {
			return "", err
		}
	}
	return tb.ID, nil
}

// samePrefix says whether to's branch (tv) holds a beginning of the
// source's (sv), by the rule of Copy.
func samePrefix(tv, sv View) error {
	differ := func(why string) error {
		return Sentencef(ErrExist, "it differs from the source's (%s); sessfs copy adds to a branch, never changes one", why)
	}
	switch {
	case tv.Inherited() != sv.Inherited():
		return differ(fmt.Sprintf("forked at message %d, not %d", tv.Inherited(), sv.Inherited()))
	case tv.Len() > sv.Len():
		return differ(fmt.Sprintf("%d messages, the source %d", tv.Len(), sv.Len()))
	case tv.Len() == tv.Inherited():
		return nil // nothing of its own yet
	}
	last := tv.Len() - 1
	a, err := tv.Read(last, last+1)
	if err != nil {
		return err
	}
	b, err := sv.Read(last, last+1)
	if err != nil {
		return err
	}
	if !bytes.Equal(a[0].Raw, b[0].Raw) {
		return differ(fmt.Sprintf("message %d is not the same", last+1))
	}
	return nil
}
