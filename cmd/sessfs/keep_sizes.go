package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
)

// sizeKeeper has the store keep the piece sizes of the sessions an import
// stored (fsnode.KeepSizes), on a goroutine of its own, so that rendering
// them overlaps the import's reading and writing of the next ones.
type sizeKeeper struct {
	names chan string
	done  chan struct{}
}

func startKeepingSizes(st backing.Store, warn func(error)) *sizeKeeper {
	k := &sizeKeeper{names: make(chan string, 256), done: make(chan struct{})}
	go func() {
		defer close(k.done)
		for name := range k.names {
			s, err := st.Session(name)
			if err == nil {
				err = fsnode.KeepSizes(s)
			}
			if err != nil { // the sizes are derived: a mount computes them
				warn(fmt.Errorf("%s: keeping its transcripts' sizes: %w", name, err))
			}
		}
	}()
	return k
}

// add has the sizes of session name kept.
func (k *sizeKeeper) add(name string) { k.names <- name }

// wait returns when every session added has its sizes kept.
func (k *sizeKeeper) wait() {
	close(k.names)
	<-k.done
}
