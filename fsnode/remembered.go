package fsnode

import (
	"container/list"
	"sync"

	"github.com/hanwen/go-fuse/v2/fs"
)

// The session folders the kernel remembers. It keeps the node of every
// file looked up until its memory runs short, and the mount keeps its own
// state beside each (the session's handle, each rendering's caches): a
// few KiB a session read, 28,661 sessions' worth after reading every file
// of a 10 GB store, far past the daemon's 200 MiB. So the mount remembers
// the folders of the sessions read in last (Options.MaxRemembered),
// and asks the kernel to forget the entry of an older one (a notification
// of its name): the kernel drops the folder's entry with what is under it
// and then forgets their nodes, as it does under memory pressure. A folder in
// use (a shell's working folder, an open file) stays until it is not. The
// next lookup of a forgotten session makes its nodes anew.

// DefaultMaxRemembered is how many session folders the kernel is left
// to remember by default: a few MiB of the daemon's memory.
const DefaultMaxRemembered = 2048

type rememberedSessions struct {
	mu   sync.Mutex
	list *list.List               // of *fs.Inode, the folder read in last first
	at   map[uint64]*list.Element // by the folder's inode number
}

// remember records that the kernel looked up a file in the session
// folder in, and has the kernel forget the folders read in longest ago
// past the bound. A lookup of the folder alone (ls -l of the mount) costs
// the mount a node and no more: only reading in it counts.
func (f *FS) remember(in *fs.Inode) {
	r := &f.remembered
	ino := in.StableAttr().Ino
	var old []*fs.Inode
	r.mu.Lock()
	if r.list == nil {
		r.list, r.at = list.New(), map[uint64]*list.Element{}
	}
	if el, ok := r.at[ino]; ok {
		el.Value = in
		r.list.MoveToFront(el)
	} else {
		r.at[ino] = r.list.PushFront(in)
	}
	bound := f.opts.MaxRemembered
	if bound <= 0 {
		bound = DefaultMaxRemembered
	}
	for r.list.Len() > bound {
		el := r.list.Back()
		r.list.Remove(el)
		o := el.Value.(*fs.Inode)
		delete(r.at, o.StableAttr().Ino)
		old = append(old, o)
	}
	r.mu.Unlock()
	if len(old) > 0 {
		// Not within this request: the kernel may hold what the
		// notification needs until the request is answered.
		go func() {
			for _, o := range old {
				if name, parent := o.Parent(); parent != nil {
					parent.NotifyEntry(name)
				}
			}
		}()
	}
}

// forgotten drops the folder of inode number ino: the kernel forgot it.
func (f *FS) forgotten(ino uint64) {
	r := &f.remembered
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.at[ino]; ok {
		r.list.Remove(el)
		delete(r.at, ino)
	}
}

// rememberedCount is how many session folders are remembered (Held).
func (f *FS) rememberedCount() int {
	r := &f.remembered
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.at)
}
