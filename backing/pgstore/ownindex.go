package pgstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/sessfs/sessfs/backing"
)

// Kinds of messages as the messages table's kind column keeps them: what
// the turn rule and the counts need, so that neither reads a message.
const (
	kindPrompt  = 1
	kindEvent   = 2
	kindContext = 4
	kindTyped   = 8
)

func kindBits(k backing.Kind) int16 {
	var b int16
	if k.Prompt {
		b |= kindPrompt
	}
	if k.Event {
		b |= kindEvent
	}
	if k.Context {
		b |= kindContext
	}
	if k.Typed {
		b |= kindTyped
	}
	return b
}

func kindOf(b int16) backing.Kind {
	return backing.Kind{Prompt: b&kindPrompt != 0, Event: b&kindEvent != 0, Context: b&kindContext != 0, Typed: b&kindTyped != 0}
}

// ownIndex is what a view needs of a branch's own messages, kept by the
// process and extended as the branch grows (messages never change once
// stored): the length and kind of each, where its prompts, turns and
// events are. Building it reads a few bytes a message once; a view after
// that reads only what was appended since.
type ownIndex struct {
	mu    sync.Mutex
	lens  []int32
	kinds []backing.Kind
	marks backing.Marks // turn starts and events
}

// ownIndex returns the process-wide index of branch id's own messages.
func (s *Session) ownIndex(id string) *ownIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.own[id]
	if x == nil {
		x = &ownIndex{}
		s.own[id] = x
	}
	return x
}

// push indexes the next message, placing its turn's start by the turn
// rule (backing.TurnStart) when it is a prompt. Context before a prompt
// is looked for in the branch's own messages: a fork point between them
// leaves the context in the turn before, as a fork cut there shows it.
func (x *ownIndex) push(n int32, k backing.Kind) {
	x.lens = append(x.lens, n)
	x.kinds = append(x.kinds, k)
	x.marks.Push(len(x.lens)-1, k, func(j int) backing.Kind { return x.kinds[j] })
}

// fill brings the index up to the branch's first n own messages, reading
// the ones it lacks. The caller holds x.mu.
func (x *ownIndex) fill(ctx context.Context, q querier, session, branch string, n int64) error {
	have := int64(len(x.lens))
	if have >= n {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT raw_len, kind FROM messages
		WHERE session_id = $1 AND branch_id = $2 AND seq >= $3 AND seq < $4 ORDER BY seq`,
		session, branch, have, n)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var l int32
		var k int16
		if err := rows.Scan(&l, &k); err != nil {
			return err
		}
		x.push(l, kindOf(k))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if int64(len(x.lens)) != n {
		return fmt.Errorf("%w: branch %s has %d messages of the %d it counts", backing.ErrDamaged, branch, len(x.lens), n)
	}
	return nil
}

// indexed adds the messages of this process's append, stored as sent
// (f), ending at the branch's next own message: when the index had every
// message before them, a view after the append reads nothing.
func (s *Session) indexed(branch string, next int64, f *fields) {
	x := s.ownIndex(branch)
	x.mu.Lock()
	defer x.mu.Unlock()
	if int64(len(x.lens)) != next-int64(len(f.raw)) {
		return // appends finishing out of order, or an index not built: fill reads them
	}
	for i, raw := range f.raw {
		x.push(int32(len(raw)), kindOf(f.kind[i]))
	}
}
