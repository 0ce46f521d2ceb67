package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// turnDir is turns/<n>/: the turn's messages.jsonl and transcript.md, and
// fork/, where `mkdir fork/<x>` forks the branch after this turn.
type turnDir struct {
	base
	refusing
	ref  branchRef
	turn int
	ids  []string
}

var (
	_ = (fs.NodeLookuper)((*turnDir)(nil))
	_ = (fs.NodeReaddirer)((*turnDir)(nil))
	_ = (fs.NodeGetattrer)((*turnDir)(nil))
)

func (n *turnDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	v, err := n.ref.view()
	if err != nil {
		return toErrno(err)
	}
	if n.turn > v.Turns() {
		return syscall.ENOENT
	}
	n.fsys.dirAttr(out, v.ModTime())
	return 0
}

func (n *turnDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return fs.NewListDirStream([]fuse.DirEntry{
		entry("transcript.md", fileMode, ino(kindTurnTranscript, n.ids...)),
		entry("messages.jsonl", fileMode, ino(kindTurnMessages, n.ids...)),
		entry("fork", syscall.S_IFDIR, ino(kindFork, n.ids...)),
	}), 0
}

func (n *turnDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	var in *fs.Inode
	switch name {
	case "transcript.md":
		in = child(ctx, &n.Inode, name, &renderedFile{base: base{fsys: n.fsys}, ref: n.ref, format: formatMarkdown, turn: n.turn, known: -1}, fileMode, ino(kindTurnTranscript, n.ids...))
	case "messages.jsonl":
		in = child(ctx, &n.Inode, name, &renderedFile{base: base{fsys: n.fsys}, ref: n.ref, format: formatJSONL, turn: n.turn, known: -1}, fileMode, ino(kindTurnMessages, n.ids...))
	case "fork":
		in = child(ctx, &n.Inode, name, &forkDir{base: base{fsys: n.fsys}, ref: n.ref, turn: n.turn}, syscall.S_IFDIR, ino(kindFork, n.ids...))
	default:
		return nil, syscall.ENOENT
	}
	return in, lookupAttr(ctx, in, out)
}
