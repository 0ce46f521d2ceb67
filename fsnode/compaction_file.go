package fsnode

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// compactionDoc is compaction.json of a branch (the session's: its default
// branch), a docFile: the branch's compactions, ancestry resolved, as
// backing.Compaction shows them in JSON, [] when it has none. Finding an
// imported one reads the messages, so what it has read it keeps
// (backing.CompactionLog), and a stat reads only what was appended since
// the last. Its time is the last compaction's, else the branch's creation.
type compactionDoc struct {
	ref branchRef

	mu  sync.Mutex // over log, which one file's stats and reads share
	log backing.CompactionLog
}

func (d *compactionDoc) doc() ([]byte, time.Time, error) {
	v, err := d.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	d.mu.Lock()
	err = d.log.Update(v)
	cs := d.log.List(v)
	d.mu.Unlock()
	if err != nil {
		return nil, time.Time{}, err
	}
	mtime := v.Branch().Created
	if len(cs) > 0 && !cs[len(cs)-1].Time.IsZero() {
		mtime = cs[len(cs)-1].Time
	}
	data, err := json.MarshalIndent(cs, "", "  ")
	return append(data, '\n'), mtime, err
}
