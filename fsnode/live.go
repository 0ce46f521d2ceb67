package fsnode

// The renderings the kernel caches, by branch, so that an append through
// this mount can tell them at once. Their attributes are cached for
// attrTimeout (a grep over many sessions would otherwise cost several round
// trips per file); appends by other writers show when that timeout lapses.
//
// Only files whose bytes an append can change are kept: the whole-branch
// renderings, and the rendering of a branch's last turn (an earlier turn
// never changes again).

// watch records n as a live rendering of the branch named key. The caller
// holds n.mu: FS.mu is taken after a node's lock, never before it.
func (f *FS) watch(key string, n *renderedFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	set := f.live[key]
	if set == nil {
		set = map[*renderedFile]struct{}{}
		f.live[key] = set
	}
	if _, ok := set[n]; !ok {
		set[n] = struct{}{}
		f.liveSessions[n.ref.s.ID()]++
	}
}

// grew tells the kernel about the new size of every live rendering of the
// branch ref names, after an append through this mount: the write returns
// only once a stat would see it. The caller holds no lock of the mount, and
// grew takes none while notifying: a notification waits for the kernel,
// which may first need a request of the same file answered.
func (f *FS) grew(ref branchRef) {
	f.mu.Lock()
	watched := f.liveSessions[ref.s.ID()] > 0
	f.mu.Unlock()
	if !watched { // the common case for a harness: nothing to tell
		return
	}
	v, err := ref.view()
	if err != nil {
		return
	}
	key := ref.key(v)
	f.mu.Lock()
	var files []*renderedFile
	for n := range f.live[key] {
		files = append(files, n)
	}
	f.mu.Unlock()
	for _, n := range files {
		if sp, err := n.span(true); err == nil {
			n.changed(sp)
		}
		// A turn the append finished (one write can end it and start the
		// next) has just been told its last size: it will not grow again.
		if n.turn > 0 && n.turn < v.Turns() {
			f.unwatch(key, n)
		}
	}
}

// unwatch forgets n: a finished turn, or a node the kernel forgot.
func (f *FS) unwatch(key string, n *renderedFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	set := f.live[key]
	if _, ok := set[n]; !ok {
		return
	}
	delete(set, n)
	if len(set) == 0 {
		delete(f.live, key)
	}
	sid := n.ref.s.ID()
	f.liveSessions[sid]--
	if f.liveSessions[sid] == 0 {
		delete(f.liveSessions, sid)
	}
}
