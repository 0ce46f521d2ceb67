// Package pgstore is the PostgreSQL engine of backing's contract: a store
// of sessions kept in one PostgreSQL database, so that a team's mounts on
// several machines share it and see each other's changes within a second.
//
// It owns the schema (schema.go) and its upgrades (Migrate, run on first
// use and by `sessfs db migrate`), and how each call of the contract maps
// to statements. The shared rules (what a message is, the turn rule,
// names, the edit rule of meta.json, titles) are backing's and are used
// from there.
//
// The shape of the data, and why:
//
//   - Every table carries session_id and every query of a session's data
//     filters by it, so the schema distributes by session with Citus
//     unchanged. The namespace (names) is the one table keyed otherwise:
//     a name is unique across the store, so it is keyed by name (a Citus
//     reference table).
//   - A message is stored as the bytes the contract gives (bytea, never
//     jsonb, which reorders keys, drops duplicates and refuses \u0000),
//     with its length, its own id and its kind (prompt, event, context)
//     beside it, so that counts, turns and retries never read it.
//   - A branch is one row: its parent and fork point (a count of the
//     parent's own messages), the count of its own messages (next_seq) and
//     of their events. An append is one statement that advances next_seq
//     (the row's lock orders concurrent appenders) and inserts the
//     messages at the sequence numbers it took; the primary key
//     (session_id, branch_id, seq) is the backstop. A fork inserts one row.
//   - Every change inserts a row into changes (a bigserial revision) and
//     NOTIFYs in its own transaction: other processes take the
//     notification as a hint and read the changes past the last revision
//     they saw (feed.go, listen.go).
//   - What search and the catalog read is derived from each message as it
//     is stored (its words as a tsvector, its role and time, whether it
//     spends), so search never catches up with the store (search.go,
//     words.go); what sessions spent is caught up from per-branch marks
//     (spend.go). Reindex derives it all again.
//
// Beside the contract it has fsck (fsck.go) and sweep (sweep.go), and
// pgtest, a database of its own for each test.
package pgstore
