// Package memstore is the memory engine: a store kept in the process's
// memory and nowhere else, gone when the process ends. It implements
// backing's contract (backing.Store, Session, View) and the optional
// backing.Receiver (a session of another store taken in under its id) and
// backing.Remover (a session deleted for good, at once). A mount serves
// its ephemeral sessions, MOUNT/tmp/, from one; `mv tmp/x x` copies a
// session into the real store with backing.Copy.
//
// It owns nothing on disk. What it keeps, under one mutex: the sessions
// by id (their meta.json as bytes, as a file would hold it), the names of
// the active and archived ones, and each branch's own messages as the
// lines Prepare made of them, with the Marks the turn rule needs. A fork
// is a record of its parent and how many of the parent's own messages it
// keeps (Branch.ParentOffset is that count); a view is the first lines of
// each branch of its ancestry, slices that only ever grow. The rules
// (messages, names, meta edits, the turn rule, counts) are package
// backing's.
//
// What a file store keeps that memory need not: a deleted branch's
// messages are dropped with it, as is a session Remove drops; the trash
// is kept until the process ends, so Restore works as the contract says.
// The bytes of messages held are bounded (Options.MaxBytes): an append
// past the bound fails with ENOSPC, so that a runaway writer cannot take
// the machine's memory.
//
// Every change is this process's own, so the change feed reports each one
// to every subscriber before the call that made it returns; Follow has
// nothing to add.
package memstore
