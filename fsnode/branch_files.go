package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
)

// The files every branch shows, at a session's top level (for its default
// branch) and in branches/<name>/.
var branchFileNames = []string{"transcript.md", "transcript.html", "transcript.redacted.md", "messages.jsonl", "export.json", "append", "turns"}
var branchFileModes = []uint32{fileMode, fileMode, fileMode, fileMode, fileMode, fileMode, syscall.S_IFDIR}

// branchFile makes the node for one of branchFileNames; ids are the path's
// immutable ids (session id, and branch id below branches/).
func branchFile(ctx context.Context, parent *fs.Inode, fsys *FS, ref branchRef, name string, ids ...string) *fs.Inode {
	switch name {
	case "transcript.md":
		return child(ctx, parent, name, &renderedFile{base: base{fsys: fsys}, ref: ref, format: formatMarkdown, known: -1}, fileMode, ino(kindTranscript, ids...))
	case "transcript.html":
		return child(ctx, parent, name, &renderedFile{base: base{fsys: fsys}, ref: ref, format: formatHTML, known: -1}, fileMode, ino(kindHTML, ids...))
	case "transcript.redacted.md":
		return child(ctx, parent, name, &renderedFile{base: base{fsys: fsys}, ref: ref, format: formatRedacted, known: -1}, fileMode, ino(kindRedacted, ids...))
	case "export.json":
		return child(ctx, parent, name, &renderedFile{base: base{fsys: fsys}, ref: ref, format: formatJSON, known: -1}, fileMode, ino(kindExport, ids...))
	case "messages.jsonl":
		return child(ctx, parent, name, &renderedFile{base: base{fsys: fsys}, ref: ref, format: formatJSONL, known: -1}, fileMode, ino(kindMessages, ids...))
	case "append":
		// A fresh inode for every lookup (its entry is never cached): the
		// kernel takes the inode lock for each write beyond EOF, which
		// every write to append is, so writers sharing one inode would
		// queue one by one and never meet in the store's group commit.
		return parent.NewInode(ctx, &appendFile{base: base{fsys: fsys}, ref: ref},
			fs.StableAttr{Mode: fileMode, Ino: fsys.appendIno(ino(kindAppend, ids...))})
	case "turns":
		return child(ctx, parent, name, &turnsDir{base: base{fsys: fsys}, ref: ref, ids: ids}, syscall.S_IFDIR, ino(kindTurns, ids...))
	}
	return nil
}
