package filestore

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// logged collects what a store reports through Options.Logf.
type logged struct {
	mu    sync.Mutex
	lines []string
}

func (l *logged) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logged) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func openLogged(t *testing.T, root string, opts Options) (*Store, *logged) {
	t.Helper()
	l := &logged{}
	opts.Logf = l.logf
	st, err := Open(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st, l
}

func hitsOf(t *testing.T, st *Store, text string) []string {
	t.Helper()
	hits, err := st.Search(backing.Query{Text: text})
	if err != nil {
		t.Fatalf("Search(%q): %v", text, err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/t%d", h.Name, h.Turn))
	}
	return out
}

// TestIndexDeleted: the index deleted under an open store is noticed by
// the next search, which rebuilds it, answers in full and says so once.
func TestIndexDeleted(t *testing.T) {
	root := t.TempDir()
	st0, _ := openLogged(t, root, Options{})
	appendTurns(t, newSession(t, st0, "a"), "", "x", 3)
	hitsOf(t, st0, "xq1") // built by another handle: st finds it whole
	st, l := openLogged(t, root, Options{})
	s := reopen(t, st, "a")
	if got := hitsOf(t, st, "xq2"); !slices.Equal(got, []string{"a/t2"}) {
		t.Fatalf("before: %q", got)
	}
	removeIndexFiles(st.idx.path())
	appendTurns(t, s, "", "y", 1)
	if got := hitsOf(t, st, "xq2 OR yq1"); len(got) != 2 {
		t.Errorf("after deleting the index: %q, want turns 2 and 4", got)
	}
	if lines := l.all(); len(lines) != 1 || !strings.Contains(lines[0], "deleted") {
		t.Errorf("logged %q, want one line saying the index was deleted", lines)
	}
}

// TestIndexDamaged: an index file that is not a database is rebuilt, and
// a search answers.
func TestIndexDamaged(t *testing.T) {
	root := t.TempDir()
	st, _ := openLogged(t, root, Options{})
	appendTurns(t, newSession(t, st, "a"), "", "x", 2)
	if got := hitsOf(t, st, "xa2"); len(got) != 1 {
		t.Fatalf("before: %q", got)
	}
	st.idx.close()
	removeIndexFiles(st.idx.path())
	if err := os.WriteFile(st.idx.path(), []byte(strings.Repeat("not a database\n", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	st2, l := openLogged(t, root, Options{})
	if got := hitsOf(t, st2, "xa2"); !slices.Equal(got, []string{"a/t2"}) {
		t.Errorf("after damage: %q", got)
	}
	if lines := l.all(); len(lines) != 1 || !strings.Contains(lines[0], "damaged") {
		t.Errorf("logged %q, want one line saying the index was damaged", lines)
	}
}

// TestIndexMarks: a change leaves a dirty mark, a search catches up and
// drops it, and a mark a dead process had taken is done again.
func TestIndexMarks(t *testing.T) {
	st, _ := openLogged(t, t.TempDir(), Options{})
	s := newSession(t, st, "a")
	hitsOf(t, st, "anything") // build the (empty) index
	appendTurns(t, s, "", "x", 1)
	marks := func() []string {
		ents, _ := os.ReadDir(st.dirtyDir())
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if got := marks(); !slices.Equal(got, []string{s.ID()}) {
		t.Fatalf("marks after an append: %q, want the session's", got)
	}
	if got := hitsOf(t, st, "xq1"); len(got) != 1 {
		t.Fatalf("search: %q", got)
	}
	if got := marks(); len(got) != 0 {
		t.Fatalf("marks after a search: %q, want none", got)
	}
	// A process that took the mark and died before indexing: its append
	// is found all the same.
	other := reopen(t, st, "a")
	if err := other.Append("", [][]byte{msg("user", "orphaned words")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(st.path("index", "dirty", s.ID()), st.path("index", "dirty", s.ID()+".99999-1")); err != nil {
		t.Fatal(err)
	}
	if got := hitsOf(t, st, "orphaned"); !slices.Equal(got, []string{"a/t2"}) {
		t.Errorf("after a taken mark: %q", got)
	}
	if got := marks(); len(got) != 0 {
		t.Errorf("marks left: %q", got)
	}
}

// TestIndexBackground: with Options.Indexing, an append is indexed within
// a second without a search asking for it.
func TestIndexBackground(t *testing.T) {
	st, _ := openLogged(t, t.TempDir(), Options{Indexing: true})
	s := newSession(t, st, "a")
	appendTurns(t, s, "", "x", 1)
	deadline := time.Now().Add(time.Second)
	for {
		var n int
		st.idx.mu.Lock()
		if st.idx.db != nil {
			st.idx.db.QueryRow(`SELECT count(*) FROM messages WHERE session = ?`, s.ID()).Scan(&n)
		}
		st.idx.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 1 s, %d messages indexed, want 2", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReindexProgress: a rebuild reports each session and leaves an index
// that answers.
func TestReindexProgress(t *testing.T) {
	st, _ := openLogged(t, t.TempDir(), Options{})
	for _, name := range []string{"a", "b", "c"} {
		appendTurns(t, newSession(t, st, name), "", name, 1)
	}
	var calls []string
	if err := st.Reindex(func(done, total int) { calls = append(calls, fmt.Sprint(done, "/", total)) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []string{"1/3", "2/3", "3/3"}) {
		t.Errorf("progress %q", calls)
	}
	if got := hitsOf(t, st, "bq1"); !slices.Equal(got, []string{"b/t1"}) {
		t.Errorf("after Reindex: %q", got)
	}
}

// TestBuildingProgress: a build no one asked for, the first search of a
// store, reports its progress through Options.Building; a search of a
// whole index builds nothing and reports nothing.
func TestBuildingProgress(t *testing.T) {
	root := t.TempDir()
	st, _ := openLogged(t, root, Options{})
	for _, name := range []string{"a", "b"} {
		appendTurns(t, newSession(t, st, name), "", name, 1)
	}
	var calls []string
	st, _ = openLogged(t, root, Options{Building: func(done, total int) { calls = append(calls, fmt.Sprint(done, "/", total)) }})
	if got := hitsOf(t, st, "aq1"); !slices.Equal(got, []string{"a/t1"}) {
		t.Errorf("first search: %q", got)
	}
	if !slices.Equal(calls, []string{"1/2", "2/2"}) {
		t.Errorf("progress of the first build: %q", calls)
	}
	calls = nil
	hitsOf(t, st, "bq1")
	if len(calls) != 0 {
		t.Errorf("progress of a search of a whole index: %q", calls)
	}
}

// TestSearchCommonNewestFirst: a query that matches more than rankMax
// messages lists them newest first, not by rank.
func TestSearchCommonNewestFirst(t *testing.T) {
	defer func(n int) { rankMax = n }(rankMax)
	rankMax = 3
	st, _ := openLogged(t, t.TempDir(), Options{})
	s := newSession(t, st, "a")
	for _, text := range []string{"lemon", "lemon lemon lemon", "lemon and more", "last lemon"} {
		if err := s.Append("", [][]byte{msg("user", text)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := hitsOf(t, st, "lemon"); !slices.Equal(got, []string{"a/t4", "a/t3", "a/t2", "a/t1"}) {
		t.Errorf("common word: %q, want newest first", got)
	}
	if got := hitsOf(t, st, "lemon OR more"); !slices.Equal(got, []string{"a/t4", "a/t3", "a/t2", "a/t1"}) {
		t.Errorf("common query: %q, want newest first", got)
	}
	rankMax = 4
	if got := hitsOf(t, st, "lemon"); len(got) != 4 || got[0] != "a/t2" {
		t.Errorf("ranked: %q, want turn 2 (lemon three times) first", got)
	}
}

// TestCatalogKeptUntilChanged: the catalog a store keeps between calls is
// read again when another process has changed the index, even when that
// process caught up with the change itself and left this one nothing to
// catch up (no mark, no names change).
func TestCatalogKeptUntilChanged(t *testing.T) {
	root := t.TempDir()
	st, _ := openLogged(t, root, Options{})
	appendTurns(t, newSession(t, st, "a"), "", "x", 1)
	other, _ := openLogged(t, root, Options{})
	// Past the racy window, so that the names stamp is kept and the next
	// call finds nothing to do.
	for stamp := st.NamesChanged(); time.Since(stamp) <= racyStamp; {
		time.Sleep(10 * time.Millisecond)
	}
	messages := func(st *Store) int {
		t.Helper()
		es, err := st.Catalog(backing.CatalogQuery{})
		if err != nil || len(es) != 1 {
			t.Fatalf("Catalog: %v, %v", es, err)
		}
		return es[0].Messages
	}
	if got := messages(st); got != 2 {
		t.Fatalf("catalog: %d messages, want 2", got)
	}
	s, err := other.Session("a")
	if err != nil {
		t.Fatal(err)
	}
	appendTurns(t, concrete(s, nil), "", "y", 1)
	if got := messages(other); got != 4 {
		t.Fatalf("the other process's catalog: %d messages, want 4", got)
	}
	if got := messages(st); got != 4 {
		t.Errorf("catalog after the other process indexed an append: %d messages, want 4", got)
	}
}

// TestBuildReadsAhead: a build reads sessions ahead of its writer
// (index_ahead.go); every message is found where it is, in a fork's own
// messages, a session too large to be read ahead, and chunks of a branch
// longer than one, and the index then follows appends as before.
func TestBuildReadsAhead(t *testing.T) {
	defer func(b int64) { aheadBytes = b }(aheadBytes)
	aheadBytes = 2000 // "big" is over it, the others under
	st, _ := openLogged(t, t.TempDir(), Options{Sync: SyncNone})
	a := newSession(t, st, "a")
	appendTurns(t, a, "", "a", 2)
	if _, err := a.Fork("", 2, "x"); err != nil { // after turn 1
		t.Fatal(err)
	}
	appendTurns(t, a, "x", "ax", 2)
	big := newSession(t, st, "big")
	appendTurns(t, big, "", "big"+strings.Repeat("w", 1000), 3)
	long := newSession(t, st, "long")
	appendTurns(t, long, "", "l", chunkMessages/2+3) // two chunks
	if err := st.Reindex(nil); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]string{
		"aq2":                                    "a/main/t2",
		"axq1":                                   "a/x/t2",
		"axa2":                                   "a/x/t3",
		"lq1":                                    "long/main/t1",
		"big" + strings.Repeat("w", 1000) + "a3": "big/main/t3",
		fmt.Sprintf("la%d", chunkMessages/2+3):   fmt.Sprintf("long/main/t%d", chunkMessages/2+3),
	} {
		hits, err := st.Search(backing.Query{Text: query, AllBranches: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, fmt.Sprintf("%s/%s/t%d", h.Name, h.BranchName, h.Turn))
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("%.12s…: %q, want %q", query, got, want)
		}
	}
	appendTurns(t, a, "x", "later", 1)
	if got := hitsOf(t, st, "laterq1"); len(got) != 0 {
		t.Errorf("laterq1 on the default branch: %q", got)
	}
	hits, err := st.Search(backing.Query{Text: "laterq1", AllBranches: true})
	if err != nil || len(hits) != 1 || hits[0].BranchName != "x" || hits[0].Turn != 4 {
		t.Errorf("laterq1 after the build: %+v, %v", hits, err)
	}
}

// Seeding a usage key's tally (a response of many lines) finds its rows
// by the index on (session, ukey), not by reading every message of the
// store: what made building the index quadratic in the store's size.
func TestSeedUsesTheIndex(t *testing.T) {
	st, _ := openLogged(t, t.TempDir(), Options{Sync: SyncNone})
	if _, err := st.Catalog(backing.CatalogQuery{}); err != nil {
		t.Fatal(err)
	}
	var plan []string
	err := st.idx.use(func(db *sql.DB) error {
		rows, err := db.Query(`EXPLAIN QUERY PLAN `+seedQuery, "s", "k")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				return err
			}
			plan = append(plan, detail)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 || !strings.Contains(plan[0], "USING INDEX messages_ukey") {
		t.Errorf("seed's query plan: %q, want a search of messages_ukey", plan)
	}
}

// TestIndexWALCutBack: indexing a long session grows the index's WAL to
// its transaction's size; SQLite cuts the file back once it resets it
// (walLimit) instead of keeping it at its largest for good.
func TestIndexWALCutBack(t *testing.T) {
	root := t.TempDir()
	st, _ := openLogged(t, root, Options{})
	long := newSession(t, st, "long")
	var words strings.Builder
	for i := range 600 {
		fmt.Fprintf(&words, "w%dx%d ", i, i*7919%1000003)
	}
	for i := range 1500 {
		if err := long.Append("", [][]byte{msg("user", fmt.Sprintf("m%d %s", i, words.String()))}); err != nil {
			t.Fatal(err)
		}
	}
	appendTurns(t, newSession(t, st, "short"), "", "s", 1)
	hitsOf(t, st, "sq1") // builds the index: the long session in one transaction
	appendTurns(t, newSession(t, st, "later"), "", "l", 1)
	hitsOf(t, st, "lq1") // a catch-up: a write after the checkpoint resets the WAL
	fi, err := os.Stat(filepath.Join(root, "index", "search.db-wal"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > walLimit {
		t.Errorf("search.db-wal is %d bytes after the build, over %d", fi.Size(), walLimit)
	}
}
