package backing

import (
	"sort"
	"time"
)

// DefaultBranchName names the branch every session starts with.
const DefaultBranchName = "main"

// Branch is a line of messages. A fork copies nothing: it names its parent
// branch and where in the parent's own messages it continues from, and
// reading it resolves that ancestry. Names map to stable ids, so a rename
// changes one record and leaves children untouched.
type Branch struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Parent is the id of the branch this one forked from; empty for the
	// default branch, the root of the tree.
	Parent string `json:"parent,omitempty"`
	// ParentOffset is where this branch leaves its parent's own
	// messages, in the engine's terms (the file engine: bytes of the
	// parent's log, at a line boundary). Only the engine reads it.
	ParentOffset int64     `json:"parent_offset"`
	Created      time.Time `json:"created"`
}

// IsDefault reports whether b is the session's default branch.
func (b Branch) IsDefault() bool { return b.Parent == "" }

// Head is the fork point at the head of a branch.
const Head = -1

// SortBranches puts branches in the order Session.Branches lists them, the
// same in every engine: the default branch first, then by name.
func SortBranches(list []Branch) {
	sort.Slice(list, func(i, j int) bool {
		if list[i].IsDefault() != list[j].IsDefault() {
			return list[i].IsDefault()
		}
		return list[i].Name < list[j].Name
	})
}
