package filestore

import (
	"errors"
	"fmt"
	"os"

	"github.com/sessfs/sessfs/backing"
)

// pending is one Append waiting for the commit that covers it.
type pending struct {
	branch string // id
	lines  [][]byte
	kinds  []backing.Kind
	ids    []string // the ids the writer gave ("" for others); nil if none
	dup    []bool   // set under the lock: dup[i] marks a retry (see retried); nil if none
	done   chan error
}

// appendID adds messages to the branch of id ("" is the default branch),
// all or none. Each message is a JSON object with a string "role" and a
// "content"; "id" and "ts" are added when absent and every other field is
// kept. When it returns nil the messages are on disk (fsynced, unless the
// store was opened with SyncNone), after any appended before by this
// process. Concurrent appends of one session share writes and fsyncs
// (group commit) and never interleave. A message with an "id" of its own
// that the branch already has (a retry) is acknowledged and not stored
// again: see dedupe.go. A branch deleted meanwhile fails with ErrNotFound.
func (s *Session) appendID(branchID string, msgs [][]byte) error {
	if len(msgs) == 0 {
		return nil
	}
	// The id must name a branch of the list, never a path: the log's
	// file name is made of it.
	b, err := s.BranchByID(branchID)
	if err != nil {
		return err
	}
	branchID = b.ID
	p := &pending{branch: branchID, done: make(chan error, 1)}
	t := now()
	for i, raw := range msgs {
		line, id, given, err := backing.Prepare(raw, t, s.st.opts.MaxMessage)
		if err != nil {
			return &backing.MessageError{N: i, Err: err}
		}
		k := backing.KindOf(line) // checked by Prepare
		p.lines = append(p.lines, line)
		p.kinds = append(p.kinds, k)
		if given {
			if p.ids == nil {
				p.ids = make([]string, len(msgs))
			}
			p.ids[i] = id
		}
	}
	return s.commit(p)
}

// commit queues p and either waits for the committing goroutine to cover
// it or becomes that goroutine: the first comes in, takes the lock, writes
// everything queued so far in one write per log, fsyncs once, and repeats
// while more arrived meanwhile.
func (s *Session) commit(p *pending) error {
	s.mu.Lock()
	s.queue = append(s.queue, p)
	if s.committing {
		s.mu.Unlock()
		return <-p.done
	}
	s.committing = true
	for len(s.queue) > 0 {
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		s.writeBatch(batch)
		s.mu.Lock()
	}
	s.committing = false
	s.mu.Unlock()
	return <-p.done
}

func (s *Session) writeBatch(batch []*pending) {
	unlock, err := s.lockWritable()
	if err != nil {
		for _, p := range batch {
			p.done <- err
		}
		return
	}
	defer unlock()
	var order []string
	byBranch := map[string][]*pending{}
	for _, p := range batch {
		if byBranch[p.branch] == nil {
			order = append(order, p.branch)
		}
		byBranch[p.branch] = append(byBranch[p.branch], p)
	}
	for _, id := range order {
		group := byBranch[id]
		err := s.writeBranch(id, group)
		for _, p := range group {
			p.done <- err
		}
	}
}

// writeBranch appends the lines of group to one branch's log, but for
// retries of messages it has (see dedupe.go); the caller holds the session
// lock. On failure the log is cut back to where it was, so a refused append
// leaves nothing behind.
func (s *Session) writeBranch(id string, group []*pending) error {
	// The branch may have been deleted by another process since Append
	// looked it up. (Lstat: whether the file is there is all it asks.)
	if _, err := os.Lstat(s.branchFile(id)); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("branch was deleted: %w", backing.ErrNotFound)
		}
		return err
	}
	f, size, err := s.openLog(id)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := s.retried(id, group); err != nil {
		return err
	}
	var buf []byte
	var lines [][]byte
	var kinds []backing.Kind
	for _, p := range group {
		for i, l := range p.lines {
			if p.dup != nil && p.dup[i] {
				continue
			}
			buf = append(buf, l...)
			buf = append(buf, '\n')
			lines = append(lines, l)
			kinds = append(kinds, p.kinds[i])
		}
	}
	if len(buf) == 0 {
		// Every message was a retry. Its first write may be in the page
		// cache only (its writer died before the fsync): sync it now.
		if s.st.opts.Sync == SyncFull {
			return f.Sync()
		}
		return nil
	}
	if _, err := f.Write(buf); err != nil {
		f.Truncate(size)
		return fmt.Errorf("append to %s: %w", s.logFile(id), err)
	}
	if s.st.opts.Sync == SyncFull {
		if err := f.Sync(); err != nil {
			f.Truncate(size)
			return fmt.Errorf("fsync %s: %w", s.logFile(id), err)
		}
	}
	s.logIndex(id).appended(size, lines, kinds)
	s.autoTitle(id, lines, kinds)
	s.sealAfterAppend(id, size+int64(len(buf)))
	return nil
}
