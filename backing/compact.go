package backing

import (
	"errors"
)

// CompactOptions is what Compact is asked.
type CompactOptions struct {
	// At is the last turn the summary stands for (1-based, as turns/<n>/
	// numbers them); 0 is the branch's last turn: the whole history, as
	// an agent's own /compact replaces it.
	At      int
	Summary string
	Model   string // the summarizer's, recorded when given
	// Name is the new branch's name; "" is <branch>-compact-<n>, the
	// first free n.
	Name string
}

// Compacted says what Compact made.
type Compacted struct {
	Branch Branch // the new branch
	At     int    // the last turn the summary stands for
	Kept   int    // the messages copied after it, events included
}

// Compact makes a new branch whose history is summary o.Summary of turns
// 1 to o.At of branch fromID, then copies of the messages of the turns
// after it, byte for byte (ids included, as a fork shares them): the
// CompactionLines first, then the copies, in one append. The branch
// compacted is not changed, and nothing is deleted: the new branch is a
// fork of it at 0, so the fork tree shows where it came from.
//
// It cannot be one fork at the boundary, the summary being what comes
// first; a copy is what the contract allows.
func Compact(s Session, fromID string, o CompactOptions) (Compacted, error) {
	from, err := s.BranchByID(fromID)
	if err != nil {
		return Compacted{}, err
	}
	v, err := s.ViewID(from.ID)
	if err != nil {
		return Compacted{}, err
	}
	turns := v.Turns()
	if turns == 0 {
		return Compacted{}, Sentencef(ErrInvalid, "branch %q has no turn to compact", from.Name)
	}
	at := o.At
	if at == 0 {
		at = turns
	}
	if at < 1 || at > turns {
		return Compacted{}, Sentencef(ErrInvalid, "turn %d: branch %q has %s (compact at 1 to %d)", at, from.Name, Plural(turns, "turn"), turns)
	}
	lines, err := CompactionLines(Compaction{Summary: o.Summary, BoundaryTurn: at, Model: o.Model, FromBranch: from.Name, FromBranchID: from.ID})
	if err != nil {
		return Compacted{}, err
	}
	keep := v.Len()
	if at < turns {
		if keep, _, err = v.TurnRange(at + 1); err != nil {
			return Compacted{}, err
		}
	}
	kept, err := v.Read(keep, v.Len())
	if err != nil {
		return Compacted{}, err
	}
	for _, m := range kept {
		lines = append(lines, m.Raw)
	}
	name := o.Name
	if name == "" {
		if name, err = freeName(s, from.Name+"-compact-"); err != nil {
			return Compacted{}, err
		}
	}
	b, err := s.Fork(from.ID, 0, name)
	if err != nil {
		return Compacted{}, err
	}
	if err := s.AppendID(b.ID, lines); err != nil {
		// An empty branch of ours: nothing of anyone's goes with it.
		return Compacted{}, errors.Join(err, s.DeleteBranch(b.ID))
	}
	return Compacted{Branch: b, At: at, Kept: len(kept)}, nil
}
