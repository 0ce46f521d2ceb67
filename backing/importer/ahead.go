package importer

import "os"

// A Run with Options.Workers above 1 overlaps the files of an import:
// workers read, hash and decode the files ahead of the one whose session
// is being found or created, and store the lines of the ones before it
// behind, so that one file's decode runs while another's session is made
// durable (a new session costs ten fsyncs). What decides what a file
// becomes (finding its session by the index, choosing its name, creating
// it) stays on Run's goroutine, one file at a time in their order: the
// sessions, their names (a name taken twice gives -2 to the later file)
// and the Results are those of an import of one file at a time, and the
// Results come in that order. Memory stays that of a few files: at most
// Workers read ahead and Workers storing.

// pending is a file of a Run with workers whose Result is not given yet.
type pending struct {
	path string
	st   *storing      // nil: res is known
	done chan struct{} // closed once res is
	res  Result
}

// runAhead is Run's loop over files with Options.Workers above 1.
func (r *Importer) runAhead(files []string, done func(Result)) {
	w := r.opts.Workers
	// Only a file at a path no session's source was last found at is
	// read ahead: the index is Run's to read, and one that was is most
	// often unchanged, which the quick check tells without a read.
	ahead := make([]bool, len(files))
	for i, path := range files {
		ahead[i] = r.byPath[path] == nil
	}
	type job struct {
		path string
		out  chan *source
	}
	sources := make(chan chan *source, w) // each file's, in order; nil when not read ahead
	jobs := make(chan job)
	go func() {
		defer close(jobs)
		defer close(sources)
		for i, path := range files {
			var out chan *source
			if ahead[i] {
				out = make(chan *source, 1)
			}
			sources <- out
			if out != nil {
				jobs <- job{path, out}
			}
		}
	}()
	for range w {
		go func() {
			for j := range jobs {
				j.out <- r.readAhead(j.path)
			}
		}()
	}

	var queue []*pending             // settled, in order, Results not given yet
	storing := map[string]*pending{} // by session id, while its storing runs
	slots := make(chan struct{}, w)  // storings under way
	give := func(wait bool) {
		for len(queue) > 0 {
			p := queue[0]
			if wait {
				<-p.done
			} else {
				select {
				case <-p.done:
				default:
					return
				}
			}
			queue = queue[1:]
			if p.st != nil {
				r.stamped(p.st)
				delete(storing, p.st.s.ID())
			}
			p.res.Path = p.path
			done(p.res)
		}
	}
	r.await = func(id string) bool {
		p := storing[id]
		if p != nil {
			<-p.done
		}
		return p != nil
	}
	defer func() { r.await = nil }()
	i := 0
	for out := range sources {
		path := files[i]
		r.progress(i, len(files), path)
		i++
		if out == nil {
			// As one file at a time would, once the files before it
			// are stored: its session may be one of theirs.
			give(true)
			done(r.file(path))
			continue
		}
		p := &pending{path: path, done: make(chan struct{})}
		queue = append(queue, p)
		so := <-out
		res, st := r.settle(so)
		if st == nil {
			so.close()
			p.res = res
			close(p.done)
			give(false)
			continue
		}
		p.st = st
		storing[st.s.ID()] = p
		slots <- struct{}{}
		go func() {
			p.res = st.run()
			st.so.close()
			st.so = nil // what it decoded can go: only the Result waits
			<-slots
			close(p.done)
		}()
		give(false)
	}
	give(true)
}

// readAhead reads and decodes the file at path, new to the index, as
// importFile would (openSource, decode).
func (r *Importer) readAhead(path string) *source {
	fi, err := os.Stat(path)
	if err != nil {
		return &source{path: path, err: err}
	}
	so := r.openSource(path, fi, -1)
	if so.err == nil {
		so.decode()
	}
	return so
}
