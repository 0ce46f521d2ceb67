package fsnode

import (
	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// PieceMessage is stored message m as render takes it for a transcript
// piece: its turn's heading when it starts one, and its note
// (render.Message.Note) by the interruption rule (backing/turns.go): for
// an event that marks its turn interrupted, what it shows; for a turn's
// first message, that the turn before it was cut off. prev is how the
// turn before m's ended (noteEnding), read only when m starts a turn.
// Only what came before m decides its piece, with one exception the piece
// sizes allow for (sizes.go): injected context at a branch's end joins the
// turn of a prompt appended after it, and takes its heading. sessfs show
// and export render with it too.
func PieceMessage(m backing.Message, prev backing.Ending) render.Message {
	rm := render.Message{Raw: m.Raw}
	if m.TurnStart {
		rm.Turn = m.Turn
	}
	if m.Event { // only an event shows an interruption (read only then: every piece asks)
		rm.Note = backing.InterruptionNote(m.Raw)
	}
	if rm.Note == "" && m.TurnStart && m.Turn >= 2 {
		rm.Note = prev.Note(m.Turn - 1)
	}
	return rm
}

// noteEnding is how turn k of v ended, as far as the note on turn k+1's
// first piece needs to know: a turn is cut off only in a branch that had a
// turn_end before it (the interruption rule), so in a branch with no typed
// event before the turn (an imported session) nothing is read. Otherwise
// it reads the turn (backing.TurnEnding): the turn's size, not the
// branch's.
// ends remembers what was read of the branch's typed events, for the
// next turn asked (backing.TurnEnds).
func noteEnding(v backing.View, k int, ends *backing.TurnEnds) (backing.Ending, error) {
	if may, err := mayBeCutOff(v, k); !may || err != nil {
		return backing.Ending{}, err
	}
	return ends.Ending(v, k)
}

// mayBeCutOff reports whether v has a typed event before turn k, without
// which the turn cannot have been cut off.
func mayBeCutOff(v backing.View, k int) (bool, error) {
	if v.TypedBefore(v.Len()) == 0 { // none in the branch (an imported session): no turn to find
		return false, nil
	}
	from, _, err := v.TurnRange(k)
	if err != nil {
		return false, err
	}
	return v.TypedBefore(from) > 0, nil
}

// Pieces gives the messages of a view, read in order from message from
// on, as render takes them (PieceMessage): from the first message it
// follows the turns' endings as it goes; from a later one it reads the
// ending of each turn before a turn that begins in the range
// (noteEnding).
type Pieces struct {
	v     backing.View
	whole bool // from the first message: e has seen every one
	e     backing.Endings
	ends  backing.TurnEnds // from a later one
}

// NewPieces is Pieces of v from message from.
func NewPieces(v backing.View, from int) *Pieces {
	return &Pieces{v: v, whole: from == 0}
}

// Next is m, the next message, as render takes it.
func (p *Pieces) Next(m backing.Message) (render.Message, error) {
	if p.whole {
		p.e.Add(m)
	}
	if !m.TurnStart || m.Turn < 2 {
		return PieceMessage(m, backing.Ending{}), nil
	}
	if p.whole {
		prev, _ := p.e.Turn(m.Turn - 1)
		return PieceMessage(m, prev), nil
	}
	prev, err := noteEnding(p.v, m.Turn-1, &p.ends)
	if err != nil {
		return render.Message{}, err
	}
	return PieceMessage(m, prev), nil
}
