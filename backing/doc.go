// Package backing owns the sessfs store on disk: its layout and format
// version, sessions and their metadata, append-only message logs, branches
// that name a parent and a fork point instead of copying messages, the
// locks that let several processes write one store, crash recovery, the
// offset indexes that make reading any part of a long session cheap, and
// fsck. It knows nothing of FUSE; fsnode/ and cmd/ call into it.
//
// Layout of a store (folders 0700, files 0600):
//
//	FORMAT                      "sessfs store format 1"
//	lock                        store lock: held while the namespace changes
//	names/<name> -> ../sessions/<id>     active sessions
//	archive/<name> -> ../sessions/<id>   archived sessions
//	trash/<id> -> ../sessions/<id>       sessions in the trash
//	sessions/<id>/              never moves once made; <id> is a UUID v7
//	sessions/.tmp-<id>/         a session being made: renamed into place
//	                            whole, so a crash leaves no half session
//	  meta.json                 replaced atomically
//	  lock                      session lock: held by every write
//	  branches/<branch-id>.json name, parent branch, fork point
//	  logs/<branch-id>.jsonl    the branch's own messages, one JSON object a line
//	  trash/                    deleted branches, kept
//	  quarantine/               bytes cut by repairs, kept
//
// A session in the trash is read-only: every change to it is refused
// (ErrTrashed) until it is restored.
//
// A session's name lives in the name link, so renaming a session is one
// rename(2) of a link and never moves its folder; open handles keep working.
// The name links are the only symbolic links in a store: no other is ever
// followed (see nofollow.go), and these are used only when they point to
// ../sessions/<id>.
package backing
