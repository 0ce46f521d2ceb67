package fsnode

import (
	"encoding/json"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// frame returns what a whole-branch rendering puts around its pieces:
// transcript.html's head and tail, export.json's opening (meta and
// branches) and closing. Other renderings are their pieces alone.
func (n *renderedFile) frame(v *backing.View) (head, tail []byte, err error) {
	if n.turn > 0 {
		return nil, nil, nil
	}
	switch n.format {
	case formatHTML:
		m, err := n.ref.s.Meta()
		if err != nil {
			return nil, nil, err
		}
		title := m.Title
		if title == "" {
			title = m.Name
		}
		return render.HTMLHead(title), render.HTMLTail(), nil
	case formatJSON:
		meta, err := n.ref.s.MetaBytes()
		if err != nil {
			return nil, nil, err
		}
		branches, err := n.ref.s.Branches()
		if err != nil {
			return nil, nil, err
		}
		bs, err := json.Marshal(branches)
		if err != nil {
			return nil, nil, err
		}
		return render.JSONHead(meta, bs, v.Branch().ID), render.JSONTail(), nil
	}
	return nil, nil, nil
}
