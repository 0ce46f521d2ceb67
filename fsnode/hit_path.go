package fsnode

import (
	"path"
	"strconv"

	"github.com/sessfs/sessfs/backing"
)

// HitPath is where a search hit is in the mount, relative to its root: the
// turn folder of the message (turns/<n> of the session, or of the branch
// under branches/ when it is not the default one), the branch's folder for
// a message before the first turn, the session's folder for a match of
// its title or tags; archived sessions under archive/. The search/ view
// links to it and `sessfs search --json` prints it.
func HitPath(h backing.Hit) string {
	p := h.Name
	if h.State == backing.StateArchived {
		p = path.Join(archiveName, p)
	}
	if h.Message < 0 {
		return p
	}
	if !h.Default {
		p = path.Join(p, "branches", h.BranchName)
	}
	if h.Turn > 0 {
		p = path.Join(p, "turns", strconv.Itoa(h.Turn))
	}
	return p
}

// HitPlace says where a hit is, in words, as a search/ link's name and
// sessfs search's lines give it: the session, the branch when it is not
// the default one, and the turn, or "title" for a match of the title or
// tags (nothing for a message before the first turn).
func HitPlace(h backing.Hit) []string {
	where := []string{h.Name}
	if !h.Default {
		where = append(where, "branch "+h.BranchName)
	}
	switch {
	case h.Message < 0:
		where = append(where, "title")
	case h.Turn > 0:
		where = append(where, "turn "+strconv.Itoa(h.Turn))
	}
	return where
}
