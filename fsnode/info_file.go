package fsnode

import (
	"encoding/json"
	"time"
)

// infoDoc is branches/<name>/info.json, a docFile: what a branch is.
type infoDoc struct {
	ref branchRef
}

type branchInfo struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Default  bool      `json:"default"`
	Parent   string    `json:"parent,omitempty"` // name
	ParentID string    `json:"parent_id,omitempty"`
	ForkedAt *int      `json:"forked_at,omitempty"` // visible messages inherited from the parent
	Messages int       `json:"messages"`
	Turns    int       `json:"turns"`
	Created  time.Time `json:"created"`
}

func (n infoDoc) doc() ([]byte, time.Time, error) {
	v, err := n.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	b := v.Branch()
	info := branchInfo{ID: b.ID, Name: b.Name, Default: b.IsDefault(), Messages: v.Visible(), Turns: v.Turns(), Created: b.Created}
	if !b.IsDefault() {
		k := v.VisibleBefore(v.Inherited())
		info.ForkedAt, info.ParentID = &k, b.Parent
		if p, err := n.ref.s.BranchByID(b.Parent); err == nil {
			info.Parent = p.Name
		}
	}
	data, err := json.MarshalIndent(info, "", "  ")
	mtime := v.ModTime()
	if mtime.Before(b.Created) {
		mtime = b.Created
	}
	return append(data, '\n'), mtime, err
}
