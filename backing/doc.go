// Package backing is the store contract: what fsnode and cmd know of a
// store, whatever engine keeps it. It holds the interfaces (Store, Session
// and View in contract.go; Checker, Sweeper, Finder and SizeKeeper,
// optional features an engine may have, as rclone's optional interfaces
// are), the shared types
// (Meta, Branch, Message, SessionInfo, …), the sentinel errors callers
// branch on, and the rules every engine applies the same way, each written
// once: what a message is (ValidateMessage, Prepare), the turn rule
// (turns.go), how appended bytes are framed into messages (framing.go),
// titles, names, and the edit rule of meta.json.
//
// It holds no engine code. The engines live beside it: backing/filestore
// keeps a store in a folder. cmd opens one by name in one place
// (cmd/sessfs/engine.go); fsnode never imports an engine.
//
// Branch operations are id-first: a name is looked up once, at the edge
// (Session.Branch), and forks, renames, deletes, appends and views take the
// branch's id, so a rename in between changes nothing they do. No file
// path, descriptor or os.FileInfo crosses the contract: times are
// time.Time and store facts (space, message limit) come from methods.
package backing
