package backing

import "time"

// Finder is an engine that keeps an index of its sessions: full-text
// search over what a person reads, and a catalog of every session with
// the facts listings sort and group by. The index is derived, never the
// truth: it can be deleted at any time and is rebuilt from the store; a
// missing, stale or damaged index never fails a read, an append or a
// mount. Every call first catches up with writes made elsewhere, so what
// it answers includes every change acknowledged before it was called.
type Finder interface {
	// Search returns the hits of q, best first, ties newest first.
	Search(q Query) ([]Hit, error)
	// Catalog lists the sessions q matches (CatalogQuery.Matches),
	// newest activity first.
	Catalog(q CatalogQuery) ([]Entry, error)
	// Reindex throws the index away and builds it again from the store,
	// calling progress (when not nil) as sessions are done.
	Reindex(progress func(done, total int)) error
}

// Query is a search: the words of Text (see ParseQuery for its syntax),
// narrowed by the other fields when they are set.
type Query struct {
	Text    string
	Project string    // sessions of this project (ProjectOf)
	Agent   string    // sessions written by this agent (AgentOf)
	Role    string    // messages of this role
	Since   time.Time // messages at or after
	Until   time.Time // messages before
	// AllBranches searches every branch; otherwise each session's default
	// branch alone.
	AllBranches bool
	// Archived searches archived sessions too.
	Archived bool
	// Limit caps the hits; 0 is no cap.
	Limit int
}

// Hit is a message that matches a query, or a session whose title or tags
// do (Message -1).
type Hit struct {
	Session    string // id
	Name       string // the session's name
	State      string // StateActive or StateArchived
	Branch     string // id of the branch the message is stored in
	BranchName string
	Default    bool // Branch is the session's default branch
	Message    int  // position in the branch's view; -1 for a session hit
	Turn       int  // 1-based turn of the message; 0 if before the first
	Role       string
	Time       time.Time
	// Snippet is the text around the match; Marks are the byte ranges of
	// Snippet that matched.
	Snippet string
	Marks   [][2]int
	Score   float64 // higher is better; comparable within one search
}

// Entry is one session in the catalog.
type Entry struct {
	ID           string
	Name         string
	State        string
	Title        string
	Agent        string // AgentOf
	Project      string // ProjectOf
	Tags         []string
	Created      time.Time
	LastActivity time.Time // last append to any branch, or creation
	Messages     int       // visible messages of the default branch
	Bytes        int64     // stored size of the session's messages
	// ByModel is what the session spent, summed over every branch by
	// Tally's rule, by model: ByModel.Total() is its usage, ByModel.Cost()
	// its cost.
	ByModel ModelUsage
}
