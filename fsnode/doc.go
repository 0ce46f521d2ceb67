// Package fsnode is the FUSE view of a sessfs store: go-fuse nodes that
// turn kernel requests into calls to backing's contract (backing.Store,
// Session, View: sessions, branches, appends; never an engine) and render/ (the bytes of transcript.md, transcript.html, messages.jsonl,
// export.json). It owns the tree described in DESIGN.md ("The view"), the
// mapping of store errors to errno (errno.go, the only one), stable inode
// numbers (ino.go), the caches of rendered sizes that let a read render
// only what it returns (sizes.go), the frames around framed renderings
// (frame.go) with the transcript header (header.go, which sessfs show and
// export use too), and what the kernel caches of them: the renderings it holds,
// told of every change the store's change feed reports (live.go);
// transcript.html and export.json, whose end moves, are read as they were
// at open instead (rendered_handle.go). What open files buffer is bounded
// mount-wide (budget.go, buffer.go). MountTable (mounttable.go) reads the
// mount table, for the command line and the tests.
//
// One node type a file: root.go, session_dir.go, branches_dir.go,
// branch_dir.go, turns_dir.go, turn_dir.go, fork_dir.go, rendered_file.go,
// append_file.go, meta_file.go, info_file.go, usage_file.go (usage.json
// of a session, a branch and a turn), archive_dir.go, trash_dir.go, tmp_dir.go
// (the ephemeral sessions, of a second store, Options.Tmp),
// scratch_file.go and scratch_link.go (editors' temporaries in a session
// folder, whose one rule is in scratch_dir.go), and the views of many
// sessions: recent_dir.go, group_dir.go (by-project/ and by-tag/) and
// session_link.go, their links to session folders, all listed from the
// store's catalog (backing.CatalogOf) when an open folder is first read
// (view_handle.go, which answers the kernel's lookups of the listing). Every change is checked
// where it starts (FS.writable, FS.changeable): on a read-only mount and in
// the trash it fails with EROFS, and asked by another user than the one
// who mounted (-o allow_other) with EACCES.
package fsnode
