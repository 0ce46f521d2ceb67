package fsnode

import (
	"encoding/json"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// checkpointDoc is checkpoints/<name>, a docFile: where the checkpoint
// stands, as backing.Checkpoint shows it in JSON (its line in
// messages.jsonl, the visible messages before it, its turn, id and time),
// so a script finds the turn folder or the fork point in it. Its time is
// the checkpoint's.
type checkpointDoc struct {
	ref  branchRef
	name string
}

func (d checkpointDoc) doc() ([]byte, time.Time, error) {
	v, err := d.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	c, err := backing.FindCheckpoint(v, d.name)
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	mtime := c.Time
	if mtime.IsZero() {
		mtime = v.ModTime()
	}
	return append(data, '\n'), mtime, err
}
