package fsnode

import (
	"hash/fnv"
	"strconv"
)

// Inode kinds: each path of the tree has a kind, and its inode number is a
// hash of the kind and the immutable ids on its path, so st_ino is the same
// across mounts and remounts and differs between paths.
const (
	kindSession = iota + 1
	kindMeta
	kindTranscript
	kindMessages
	kindAppend
	kindBranches
	kindBranch
	kindInfo
	kindTurns
	kindTurn
	kindTurnTranscript
	kindTurnMessages
	kindFork
	kindArchive
	kindTrash
	kindScratch
	kindHTML
	kindRedacted
	kindExport
	kindSearch
	kindQuery
	kindHitLink
	kindUsage       // usage.json of a session or a branch
	kindTurnUsage   // usage.json of a turn
	kindRecent      // recent/
	kindRecentLink  // recent/<rank> <name>: by session id and name
	kindByProject   // by-project/ and its folders: by the project path
	kindProjectLink // by-project/<p>/<name>: by path, session id and name
	kindByTag       // by-tag/ and its folders: by the tag path
	kindTagLink     // by-tag/<t>/<name>: by path, session id and name
	kindSinceFork   // branches/<b>/since-fork.jsonl
	kindBranchTree  // branches.txt of a session
	kindTasks       // tasks.json of a branch (the session's: its default branch)
	kindMemory      // memory.json of a branch (the session's: its default branch)
	kindTmp         // tmp/, the ephemeral sessions (its sessions' numbers: FS.inoID)
	kindCheckpoints // checkpoints/ of a branch (the session's: its default branch)
	kindCheckpoint  // checkpoints/<name>: by the path's ids and the name
	kindCompaction  // compaction.json of a branch (the session's: its default branch)
	kindEvents      // events.jsonl of a branch (the session's: its default branch)
	kindTurnInfo    // info.json of a turn
	kindTurnFiles   // files/ of a turn and its folders: by the turn's ids and the folder's path
	kindTurnFile    // files/<path> of a turn: by the turn's ids and the path
	kindFilesDoc    // files.json of a turn
)

// inoID is what the inode numbers of session id's nodes hash: the id for
// the store's sessions, and the id in f's space for tmp/'s. A session
// moved from tmp/ into the store keeps its id, and must not keep the
// numbers of its tmp/ self: go-fuse takes a node of a number it knows for
// the same file, and would serve the store's session from the memory's.
// Below a branch's folder the branch id tells them apart already: a copy
// into the store makes new branches.
func (f *FS) inoID(id string) string {
	if f.space == "" {
		return id
	}
	return f.space + "/" + id
}

// ino hashes a kind and ids into an inode number below 2^63; 0 and 1 (the
// root) are never returned. go-fuse numbers the nodes given no number of
// their own (a folder made in fork/) from 2^63 up, so the two never meet.
func ino(kind int, ids ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strconv.Itoa(kind)))
	for _, id := range ids {
		h.Write([]byte{0})
		h.Write([]byte(id))
	}
	n := h.Sum64() &^ (1 << 63)
	if n < 2 {
		n += 2
	}
	return n
}
