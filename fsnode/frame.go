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
		head, err := ExportHead(n.ref.s, v)
		return head, render.JSONTail(), err
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

// ExportHead is export.json's opening for branch v of s (render.JSONHead):
// the session's meta, the branch's tasks and memory, the branches. sessfs
// export writes the same.
func ExportHead(s backing.Session, v backing.View) ([]byte, error) {
	meta, err := s.MetaBytes()
	if err != nil {
		return nil, err
	}
	tasks, _, err := backing.Document(v, backing.DocTasks)
	if err != nil {
		return nil, err
	}
	memory, _, err := backing.Document(v, backing.DocMemory)
	if err != nil {
		return nil, err
	}
	branches, err := s.Branches()
	if err != nil {
		return nil, err
	}
	bs, err := json.Marshal(branches)
	if err != nil {
		return nil, err
	}
	return render.JSONHead(render.JSONParts{Meta: meta, Tasks: tasks, Memory: memory, Branches: bs, Branch: v.Branch().ID}), nil
}
