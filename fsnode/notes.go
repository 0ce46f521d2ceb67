package fsnode

import (
	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// PieceMessage is stored message m as render takes it for a transcript
// piece: its turn's heading when it starts one, and its note
// (render.Message.Note) by the interruption rule (backing/turns.go): for
// an event that marks its turn interrupted, what it shows; for a turn's
// first message, that the turn before it was cut off. ended is how the
// turns before m's ended (ended[k-1] is turn k: backing.Endings.Finished,
// or TurnEnding); a turn it does not hold has no note. Only what came
// before m decides its piece, so a piece never changes as the branch
// grows. sessfs show and export render with it too.
func PieceMessage(m backing.Message, ended []backing.Ending) render.Message {
	rm := render.Message{Raw: m.Raw}
	if m.TurnStart {
		rm.Turn = m.Turn
	}
	if rm.Note = backing.InterruptionNote(m.Raw); rm.Note == "" && m.TurnStart && m.Turn >= 2 && m.Turn-1 <= len(ended) {
		rm.Note = ended[m.Turn-2].Note(m.Turn - 1)
	}
	return rm
}

// Pieces gives the messages of a view, read in order from message from
// on, as render takes them (PieceMessage): from the first message it
// follows the turns' endings as it goes; from a later one it reads the
// ending of each turn before a turn that begins in the range
// (backing.TurnEnding), the size of that turn, not of the branch.
type Pieces struct {
	v     backing.View
	whole bool // from the first message: e has seen every one
	e     backing.Endings
}

// NewPieces is Pieces of v from message from.
func NewPieces(v backing.View, from int) *Pieces {
	return &Pieces{v: v, whole: from == 0}
}

// Next is m, the next message, as render takes it.
func (p *Pieces) Next(m backing.Message) (render.Message, error) {
	if p.whole {
		p.e.Add(m)
		return PieceMessage(m, p.e.Finished()), nil
	}
	if !m.TurnStart || m.Turn < 2 {
		return PieceMessage(m, nil), nil
	}
	end, err := backing.TurnEnding(p.v, m.Turn-1)
	if err != nil {
		return render.Message{}, err
	}
	ended := make([]backing.Ending, m.Turn-1)
	ended[m.Turn-2] = end
	return PieceMessage(m, ended), nil
}
