package fsnode

import (
	"github.com/sessfs/sessfs/backing"
)

// branchRef names a branch the way nodes hold it: by session handle and
// branch id, so renames of either leave it valid. An empty id follows the
// session's default branch.
type branchRef struct {
	s  backing.Session
	id string
}

func (r branchRef) view() (backing.View, error) { return r.s.ViewID(r.id) }

// key names the branch in caches: the default branch resolves to its id.
func (r branchRef) key(v backing.View) string { return r.s.ID() + "/" + v.Branch().ID }
