package fsnode

import (
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// BranchTree is branches.txt of session s, which `sessfs branches --tree`
// prints too: the fork tree, each branch with its visible messages and
// where it left its parent (counted as info.json counts them), and the
// time of the latest change it shows: an append to a branch, or a branch
// made. A branch that cannot be read is drawn with its error.
func BranchTree(s backing.Session) ([]byte, time.Time, error) {
	list, err := s.Branches()
	if err != nil {
		return nil, time.Time{}, err
	}
	nodes := make([]render.TreeNode, len(list))
	var mtime time.Time
	for i, b := range list {
		nodes[i] = render.TreeNode{ID: b.ID, Parent: b.Parent, Name: b.Name}
		if b.Created.After(mtime) {
			mtime = b.Created
		}
		v, err := s.ViewID(b.ID)
		if err != nil {
			nodes[i].Err = err.Error()
			continue
		}
		nodes[i].Messages = v.Visible()
		nodes[i].ForkedAt = v.VisibleBefore(v.Inherited())
		if v.ModTime().After(mtime) {
			mtime = v.ModTime()
		}
	}
	return render.Tree(nodes), mtime, nil
}
