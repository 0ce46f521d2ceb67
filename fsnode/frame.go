package fsnode

import (
	"encoding/json"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// frame returns what a whole-branch rendering puts around its pieces:
// transcript.md's header (masked in transcript.redacted.md),
// transcript.html's head and tail, export.json's opening (meta and
// branches) and closing. messages.jsonl and a turn's files are their
// pieces alone.
func (n *renderedFile) frame(v backing.View) (head, tail []byte, err error) {
	if n.turn > 0 || n.format == formatJSONL {
		return nil, nil, nil
	}
	if n.format == formatJSON {
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
	h := TranscriptHeader(n.ref.s, v)
	switch n.format {
	case formatHTML:
		return render.HTMLHeadFor(h), render.HTMLTail(), nil
	case formatRedacted:
		return render.Redact(render.MarkdownHead(h)), nil, nil
	}
	return render.MarkdownHead(h), nil, nil
}
