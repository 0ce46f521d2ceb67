package fsnode

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// turnInfo is turns/<n>/info.json, a docFile: what a turn is and how it
// ended, by the interruption rule (backing.TurnEnding):
//
//	{"turn":2,"messages":5,"ended":false,"interrupted":true,"reason":"…","cut_off":true}
//
// Finding how it ended reads the turn; a turn a later one followed never
// changes, so what was found is kept until the turn is another one (the
// default branch moved, the last turn grew).
type turnInfo struct {
	ref   branchRef
	turn  int
	clock *turnClock  // the turn's time, as its folder's
	ends  *branchEnds // the branch's, shared with the other turns

	mu   sync.Mutex
	seen turnSpan // the turn the kept ending is of
	end  backing.Ending
}

// turnSpan names a turn's messages, and whether a later turn began.
type turnSpan struct {
	branch   string
	from, to int
	rawLen   int // the last message's stored length
	closed   bool
}

// turnInfoDoc is what info.json holds.
type turnInfoDoc struct {
	Turn     int `json:"turn"`
	Messages int `json:"messages"` // visible messages, as a person counts them
	backing.Ending
}

func (n *turnInfo) doc() ([]byte, time.Time, error) {
	v, err := n.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	from, to, err := v.TurnRange(n.turn)
	if err != nil {
		return nil, time.Time{}, err
	}
	span := turnSpan{branch: n.ref.key(v), from: from, to: to, rawLen: v.RawLen(to - 1), closed: n.turn < v.Turns()}
	n.mu.Lock()
	end, hit := n.end, n.seen == span
	n.mu.Unlock()
	if !hit {
		if end, err = n.ends.ending(v, span.branch, n.turn); err != nil {
			return nil, time.Time{}, err
		}
		n.mu.Lock()
		n.seen, n.end = span, end
		n.mu.Unlock()
	}
	doc := turnInfoDoc{Turn: n.turn, Messages: v.VisibleBefore(to) - v.VisibleBefore(from), Ending: end}
	data, err := json.MarshalIndent(doc, "", "  ")
	return append(data, '\n'), n.clock.time(v, span.branch, to), err
}

// branchEnds finds how the turns of a branch ended for their info.json,
// sharing between them what it read of the branch's typed events
// (backing.TurnEnds), so the info.json of every turn reads each once.
type branchEnds struct {
	mu     sync.Mutex
	branch string // the branch key, and how long it was, as last read
	n      int
	t      backing.TurnEnds
}

func (e *branchEnds) ending(v backing.View, branch string, k int) (backing.Ending, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if branch != e.branch || v.Len() < e.n { // another branch, or one a repair cut back
		e.t = backing.TurnEnds{}
	}
	e.branch, e.n = branch, v.Len()
	return e.t.Ending(v, k)
}
