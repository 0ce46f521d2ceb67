package main

import (
	"fmt"
	"sync"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
)

// sizeKeeper has the store keep the piece sizes of the sessions an import
// or a sync stored (fsnode.KeepSizes), on goroutines of its own, so that
// rendering them overlaps the reading and writing of the next ones. A
// session added again before its turn comes is done once: sync --watch
// stores a growing session at every line the agent writes.
type sizeKeeper struct {
	names chan string
	done  chan struct{}

	mu      sync.Mutex
	queued  map[string]bool
	dropped bool           // abandon: what is queued is left to a mount
	kept    int            // sessions done, kept or not
	onKept  func(kept int) // called after each, if set (migrate's progress); under mu
}

func startKeepingSizes(st backing.Store, warn func(error)) *sizeKeeper {
	k := &sizeKeeper{names: make(chan string, 256), done: make(chan struct{}), queued: map[string]bool{}}
	// Rendering is most of an import's work: one keeper a CPU, up to 4
	// (the engine takes care of two keeping one branch's sizes at once).
	var wg sync.WaitGroup
	for range perCPU(1, 4) {
		wg.Go(func() { k.keep(st, warn) })
	}
	go func() {
		wg.Wait()
		close(k.done)
	}()
	return k
}

// keep keeps the sizes of the sessions it is given until there are no
// more.
func (k *sizeKeeper) keep(st backing.Store, warn func(error)) {
	for name := range k.names {
		k.mu.Lock()
		delete(k.queued, name)
		dropped := k.dropped
		k.mu.Unlock()
		if dropped {
			continue
		}
		s, err := st.Session(name)
		if err == nil {
			err = fsnode.KeepSizes(s)
		}
		if err != nil { // the sizes are derived: a mount computes them
			warn(fmt.Errorf("%s: keeping its transcripts' sizes: %w", name, err))
		}
		k.mu.Lock()
		if k.kept++; k.onKept != nil {
			k.onKept(k.kept)
		}
		k.mu.Unlock()
	}
}

// add has the sizes of session name kept, unless it is already waiting
// for its turn.
func (k *sizeKeeper) add(name string) {
	k.mu.Lock()
	queued := k.queued[name]
	k.queued[name] = true
	k.mu.Unlock()
	if !queued {
		k.names <- name
	}
}

// wait returns when every session added has its sizes kept.
func (k *sizeKeeper) wait() {
	close(k.names)
	<-k.done
}

// abandon returns once the session being done is, leaving the ones still
// queued: an interrupted sync --watch exits at once. Their sizes are
// derived: a mount works them out (and keeps them) when asked.
func (k *sizeKeeper) abandon() {
	k.mu.Lock()
	k.dropped = true
	k.mu.Unlock()
	k.wait()
}
