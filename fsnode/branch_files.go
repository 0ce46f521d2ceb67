package fsnode

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// branchFiles are the files every branch shows, at a session's top level
// (for its default branch) and in branches/<name>/, with the inode kind of
// each and, for a rendering, its format.
var branchFiles = []struct {
	name   string
	mode   uint32
	kind   int
	format format // a rendering's; append, events, turns, checkpoints, compaction.json are none
}{
	{"transcript.md", fileMode, kindTranscript, formatMarkdown},
	{"transcript.html", fileMode, kindHTML, formatHTML},
	{"transcript.redacted.md", fileMode, kindRedacted, formatRedacted},
	{"messages.jsonl", fileMode, kindMessages, formatJSONL},
	{"events.jsonl", fileMode, kindEvents, 0},
	{"export.json", fileMode, kindExport, formatJSON},
	{"tasks.json", fileMode, kindTasks, 0},
	{"memory.json", fileMode, kindMemory, 0},
	{"append", fileMode, kindAppend, 0},
	{"turns", syscall.S_IFDIR, kindTurns, 0},
	{"checkpoints", syscall.S_IFDIR, kindCheckpoints, 0},
	{"compaction.json", fileMode, kindCompaction, 0},
}

// branchEntries lists branchFiles for a listing; ids are the path's
// immutable ids, as for branchFile.
func branchEntries(ids ...string) []fuse.DirEntry {
	out := make([]fuse.DirEntry, len(branchFiles))
	for i, f := range branchFiles {
		out[i] = entry(f.name, f.mode, ino(f.kind, ids...))
	}
	return out
}

// branchFile makes the node for one of branchFiles; ids are the path's
// immutable ids (session id, and branch id below branches/).
func branchFile(ctx context.Context, parent *fs.Inode, fsys *FS, ref branchRef, name string, ids ...string) *fs.Inode {
	for _, f := range branchFiles {
		if f.name != name {
			continue
		}
		switch f.kind {
		case kindAppend:
			// A node of its own for a lookup while the last one is open
			// (its entry is never cached, so every open looks it up):
			// the kernel takes the inode lock for each write beyond EOF,
			// which every write to append is, so writers sharing one
			// node would queue one by one and never meet in the store's
			// group commit. They share one inode number, told apart by
			// their generation, so stat, cp, rsync and tar see one file
			// that does not change under them. The last node, once
			// nobody has it open, is the answer again: the kernel,
			// finding the node its entry names, then keeps the entry
			// instead of looking the name up a second time, which cost
			// every `echo >> append` a round trip.
			if ch := parent.GetChild(name); ch != nil {
				if a, ok := ch.Operations().(*appendFile); ok && a.opens.Load() == 0 {
					return ch
				}
			}
			return parent.NewInode(ctx, &appendFile{base: base{fsys: fsys}, ref: ref},
				fs.StableAttr{Mode: f.mode, Ino: ino(f.kind, ids...), Gen: fsys.appendGen.Add(1)})
		case kindTasks, kindMemory:
			doc := branchDoc{ref: ref, kind: backing.DocTasks}
			if f.kind == kindMemory {
				doc.kind = backing.DocMemory
			}
			return child(ctx, parent, name, &editFile{base: base{fsys: fsys}, s: ref.s, doc: doc}, f.mode, ino(f.kind, ids...))
		case kindTurns:
			return child(ctx, parent, name, &turnsDir{base: base{fsys: fsys}, ref: ref, ids: ids}, f.mode, ino(f.kind, ids...))
		case kindCheckpoints:
			return child(ctx, parent, name, &checkpointsDir{base: base{fsys: fsys}, ref: ref, ids: ids}, f.mode, ino(f.kind, ids...))
		case kindCompaction:
			doc := &compactionDoc{ref: ref}
			return child(ctx, parent, name, &docFile{base: base{fsys: fsys}, doc: doc.doc}, f.mode, ino(f.kind, ids...))
		case kindEvents:
			return child(ctx, parent, name, &eventsFile{base: base{fsys: fsys}, ref: ref}, f.mode, ino(f.kind, ids...))
		}
		return child(ctx, parent, name, newRenderedFile(fsys, ref, f.format, 0), f.mode, ino(f.kind, ids...))
	}
	return nil
}
