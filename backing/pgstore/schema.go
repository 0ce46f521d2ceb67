package pgstore

// The schema, as numbered migrations: migration k brings a database at
// version k-1 to version k. A released migration never changes; a later
// schema adds one. Migrate applies what a database lacks.
//
// Names of columns say what they hold; the contract's terms map as:
// a branch's ParentOffset is fork_at, the number of the parent's own
// messages the branch keeps; a message's position in its branch's own
// messages is seq, from 0, with no gaps (the view's arithmetic relies on
// it).
var migrations = []string{
	1: `
CREATE TABLE sessions (
	session_id uuid PRIMARY KEY,
	-- The name it has, or had before it went to the trash (Restore).
	name       text NOT NULL,
	state      text NOT NULL CHECK (state IN ('active', 'archived', 'trashed')),
	-- meta.json as the contract gives it (backing.EncodeMeta), bytes.
	meta       bytea NOT NULL,
	meta_time  timestamptz NOT NULL,
	created    timestamptz NOT NULL,
	trashed_at timestamptz,
	-- What search filters and finds of the meta (backing.ProjectOf,
	-- AgentOf; the title and tags, less a title made from the first
	-- prompt, as words: search.go).
	project    text NOT NULL DEFAULT '',
	agent      text NOT NULL DEFAULT '',
	title_tsv  tsvector
);
CREATE INDEX sessions_title ON sessions USING gin (title_tsv);

-- The namespace: a name is unique among active and archived sessions.
CREATE TABLE names (
	name       text PRIMARY KEY,
	session_id uuid NOT NULL UNIQUE,
	archived   boolean NOT NULL DEFAULT false
);

CREATE TABLE branches (
	session_id uuid NOT NULL,
	branch_id  uuid NOT NULL,
	name       text NOT NULL,
	parent_id  uuid,                      -- NULL: the default branch
	fork_at    bigint NOT NULL DEFAULT 0, -- the parent's own messages kept
	inherited  bigint NOT NULL DEFAULT 0, -- messages of the ancestry in all
	created    timestamptz NOT NULL,
	next_seq   bigint NOT NULL DEFAULT 0, -- own messages; the next one's seq
	events     bigint NOT NULL DEFAULT 0, -- own messages that are events
	bytes      bigint NOT NULL DEFAULT 0, -- own messages' raw_len, summed
	mod_time   timestamptz NOT NULL,      -- last append (or Backdate)
	-- A copy of the session's trash state on each branch row, so that an
	-- append, which locks this row alone, is refused in the trash by the
	-- same row lock that orders it (Trash updates every branch row).
	trashed    boolean NOT NULL DEFAULT false,
	deleted_at timestamptz,               -- deleted: kept, found by nothing
	PRIMARY KEY (session_id, branch_id)
);
CREATE UNIQUE INDEX branches_name ON branches (session_id, name) WHERE deleted_at IS NULL;

CREATE TABLE messages (
	session_id uuid NOT NULL,
	branch_id  uuid NOT NULL,
	seq        bigint NOT NULL,
	raw        bytea NOT NULL,   -- the message's bytes, exactly
	raw_len    integer NOT NULL, -- octet_length(raw): RawLen without reading it
	msg_id     bytea,            -- the message's own "id" (bytes: it may hold NUL)
	kind       smallint NOT NULL, -- kindPrompt | kindEvent | kindContext | kindTyped
	-- For search, from backing.SearchText: the role, the time and the
	-- words (NULL: no text) of the message.
	role       text NOT NULL,
	ts         timestamptz,
	tsv        tsvector,
	-- The message names a model or spends (backing.UsageOf): the catalog
	-- reads these alone for what a session spent (spend.go).
	spends     boolean NOT NULL DEFAULT false,
	PRIMARY KEY (session_id, branch_id, seq)
);
CREATE INDEX messages_tsv ON messages USING gin (tsv);
CREATE INDEX messages_spends ON messages (session_id, branch_id, seq) WHERE spends;
-- Retries: does the branch (up to a fork point) have this id?
CREATE INDEX messages_msg_id ON messages (session_id, branch_id, msg_id);

-- The change feed: one row per change, read by other processes from the
-- last revision they saw.
CREATE TABLE changes (
	revision   bigserial PRIMARY KEY,
	session_id uuid NOT NULL,
	kind       smallint NOT NULL, -- backing.ChangeKind
	branch_id  uuid,
	len        bigint,
	origin     uuid NOT NULL,     -- the Store that made it: it told its own
	at         timestamptz NOT NULL
);
-- NamesChanged: the last change of a name.
CREATE INDEX changes_names ON changes (revision) WHERE kind = 4;

-- What each branch's own messages spent, by model, by backing.Tally's
-- rule: derived from the messages, caught up when the catalog is read.
CREATE TABLE spend (
	session_id  uuid NOT NULL,
	branch_id   uuid NOT NULL,
	model       text NOT NULL,
	input       bigint NOT NULL DEFAULT 0,
	output      bigint NOT NULL DEFAULT 0,
	cache_read  bigint NOT NULL DEFAULT 0,
	cache_write bigint NOT NULL DEFAULT 0,
	reasoning   bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, branch_id, model)
);
-- What each API response (key) counted so far in a session, and for
-- which model: a response's later lines add only what they have more of.
CREATE TABLE spend_keys (
	session_id  uuid NOT NULL,
	key         text NOT NULL,
	model       text NOT NULL,
	input       bigint NOT NULL,
	output      bigint NOT NULL,
	cache_read  bigint NOT NULL,
	cache_write bigint NOT NULL,
	reasoning   bigint NOT NULL,
	PRIMARY KEY (session_id, key)
);
-- How far each branch's own messages are counted, and the model in effect
-- there.
CREATE TABLE spend_marks (
	session_id uuid NOT NULL,
	branch_id  uuid NOT NULL,
	seq        bigint NOT NULL,
	model      text NOT NULL,
	PRIMARY KEY (session_id, branch_id)
);

-- Store-wide settings (the lifecycle policy of sweep).
CREATE TABLE config (
	key   text PRIMARY KEY,
	value text NOT NULL
);
`,
}

// SchemaVersion is the schema this code reads and writes.
var SchemaVersion = len(migrations) - 1
