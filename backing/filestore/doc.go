// Package filestore is the file engine: a store kept in a folder, as
// append-only logs under file locks. It implements backing's contract
// (backing.Store, Session, View) and its optional Checker (fsck and
// repair), Sweeper, Finder (search and the catalog, in SQLite) and
// SizeKeeper (piece sizes, sizes.go); it
// owns the layout and format version on disk, the locks that let several
// processes write one store, crash recovery, and the offset indexes that
// make reading any part of a long session cheap. It knows nothing of
// FUSE.
//
// Layout of a store (folders 0700, files 0600):
//
//	FORMAT                      "sessfs store format 2"; 3 from the first seal
//	lock                        store lock: held while the namespace changes
//	config.json                 optional: the lifecycle policy (sessfs sweep)
//	index/search.db             the search index and catalog (index.go):
//	                            derived, rebuilt whenever it is missing
//	index/dirty/<id>            sessions changed since the index saw them
//	index/sizes/<id>/<branch-id>.<format>
//	                            kept piece sizes (sizes.go): derived
//	index/logs/<id>/<branch-id> kept message index of the branch's own log
//	                            (logindex_kept.go): derived
//	names/<name> -> ../sessions/<id>     active sessions
//	archive/<name> -> ../sessions/<id>   archived sessions
//	trash/<id> -> ../sessions/<id>       sessions in the trash
//	sessions/<id>/              never moves once made; <id> is a UUID v7
//	sessions/.tmp-<id>/         a session being made: renamed into place
//	                            whole, so a crash leaves no half session
//	migrate/                    a migration to this format under way
//	                            (migrate.go); Open refuses the store
//	  meta.json                 replaced atomically
//	  lock                      session lock: held by every write
//	  branches/<branch-id>.json name, parent branch, fork point
//	  logs/<branch-id>.jsonl    the branch's own messages, one JSON object a line
//	  logs/<branch-id>.jsonl.zst  the log's start, sealed (sealed.go, seal.go):
//	                            compressed, its blocks in the log freed
//	  trash/                    deleted branches, kept
//	  quarantine/               bytes cut by repairs, kept
//
// A branch's fork point (backing.Branch.ParentOffset) is a byte offset in
// its parent's own log, always at a line boundary. Sealing keeps every
// offset: a log is read through logFile (logfile.go), whatever part of it
// is sealed.
//
// A session in the trash is read-only: every change to it is refused
// (backing.ErrTrashed) until it is restored.
//
// A session's name lives in the name link, so renaming a session is one
// rename(2) of a link and never moves its folder; open handles keep working.
// The name links are the only symbolic links in a store: no other is ever
// followed (see nofollow.go), and these are used only when they point to
// ../sessions/<id>.
package filestore
