package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
	"github.com/sessfs/sessfs/render"
)

// maxReplayGap caps a wait between two messages of a replay, after the
// speed divided it: a session left overnight would otherwise stop a
// replay for hours.
const maxReplayGap = 5 * time.Second

// replay writes messages [from, to) of a view as the transcript shows
// them (or as stored lines), each after the time that passed before it
// when it was written, divided by speed. Its clock and its input are
// given, so that a test plays a session without waiting.
type replay struct {
	v        backing.View
	from, to int
	jsonl    bool    // the stored lines, events included, instead of Markdown
	speed    float64 // recorded gaps are divided by it; 0: no waits at all
	pause    bool    // wait for Enter after each tool call
	out      *bufio.Writer
	in       *bufio.Reader // where Enter comes from
	prompt   io.Writer     // where a pause says it waits
	sleep    func(time.Duration)
}

// wait is how long to wait before a message written at t when the one
// printed before it was written at prev.
func (r *replay) wait(prev, t time.Time) time.Duration {
	d := t.Sub(prev)
	if r.speed == 0 || d <= 0 {
		return 0
	}
	scaled := float64(d) / r.speed
	if scaled >= float64(maxReplayGap) || math.IsInf(scaled, 0) {
		return maxReplayGap
	}
	return time.Duration(scaled)
}

// run plays the messages. A message without a time that parses is
// printed at once, and the next one waits from the last time known.
func (r *replay) run() error {
	var prev time.Time
	first := true // the first message printed, which shows its turn
	pieces := fsnode.NewPieces(r.v, r.from)
	for i := r.from; i < r.to; i += showChunk {
		msgs, err := r.v.Read(i, min(i+showChunk, r.to))
		if err != nil {
			return err
		}
		for _, m := range msgs {
			rm, err := pieces.Next(m)
			if err != nil {
				return err
			}
			piece := r.piece(m, rm, first)
			if len(piece) == 0 {
				continue // an event the transcript shows nothing of
			}
			first = false
			if t, ok := backing.MessageTime(m.Raw); ok {
				if d := r.wait(prev, t); d > 0 && !prev.IsZero() {
					if err := r.out.Flush(); err != nil {
						return err
					}
					r.sleep(d)
				}
				prev = t
			}
			if _, err := r.out.Write(piece); err != nil {
				return err
			}
			if r.pause && render.HasToolCall(m.Raw) {
				if err := r.waitForEnter(); err != nil {
					return err
				}
			}
		}
	}
	return r.out.Flush()
}

// piece is what message m prints: its line of messages.jsonl, or its
// piece of transcript.md (rm, as fsnode.Pieces gives it), empty for an
// event there but one that marks its turn interrupted. A replay that
// starts inside a turn (at a checkpoint) shows that turn's heading on
// the first message it prints, so the reader knows where it is.
func (r *replay) piece(m backing.Message, rm render.Message, first bool) []byte {
	if r.jsonl {
		return render.JSONL(rm)
	}
	if backing.KindOf(m.Raw).Event { // a stored line: checked when it was taken
		rm.Turn = 0 // the heading goes on the first message printed
	} else if first {
		rm.Turn = m.Turn
	}
	return render.Markdown(rm)
}

// waitForEnter says that the replay waits and reads a line of its input.
// With no input left (a closed or empty stdin) it stops pausing.
func (r *replay) waitForEnter() error {
	if err := r.out.Flush(); err != nil {
		return err
	}
	fmt.Fprint(r.prompt, "[tool call: press Enter to go on]")
	_, err := r.in.ReadString('\n')
	fmt.Fprintln(r.prompt)
	if errors.Is(err, io.EOF) {
		r.pause = false
		return nil
	}
	return err
}
