package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testFinder covers the optional backing.Finder, search and catalog, for
// writes made through st and, with again, by another writer; an engine
// without it skips these.
func testFinder(t *testing.T, open Opener, again Again) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Words":      findWords,
		"Syntax":     findSyntax,
		"Branches":   findBranches,
		"Namespace":  findNamespace,
		"Titles":     findTitles,
		"Filters":    findFilters,
		"NewestTies": findNewestTies,
		"Catalog":    findCatalog,
		"Groups":     findGroups,
	})
	t.Run("OtherWriter", func(t *testing.T) {
		t.Parallel()
		findOtherWriter(t, open(t), again)
	})
}

func finder(t *testing.T, st backing.Store) backing.Finder {
	t.Helper()
	f, ok := st.(backing.Finder)
	if !ok {
		t.Skip("the engine has no Finder")
	}
	return f
}

// find searches and fails the test on an error.
func find(t *testing.T, f backing.Finder, q backing.Query) []backing.Hit {
	t.Helper()
	hits, err := f.Search(q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return hits
}

// where says of each hit which session, branch, turn and message it is.
func where(hits []backing.Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s/%s/t%d/m%d", h.Name, h.BranchName, h.Turn, h.Message))
	}
	return out
}

func wantHits(t *testing.T, f backing.Finder, q backing.Query, want ...string) {
	t.Helper()
	if got := where(find(t, f, q)); !slices.Equal(got, append([]string{}, want...)) {
		t.Errorf("Search(%q) = %q, want %q", q.Text, got, want)
	}
}

// findWords: a word is found in the message that holds it, with the turn,
// role and snippet marks right, in a tool call's input too; case and
// punctuation do not matter.
func findWords(t *testing.T, st backing.Store) {
	f := finder(t, st)
	s := newSession(t, st, "a")
	appendOK(t, s, "", ctx("developer", "instructions", "be terse"),
		msg("user", "how do I fsync a directory?"),
		msg("assistant", "Open it, then call Fsync on the descriptor."),
		msg("user", "and rename atomically?"),
		[]byte(`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"mv -T tmp.json meta.json"}}]}`),
		toolResult("t1"))
	hits := find(t, f, backing.Query{Text: "FSYNC"})
	if got := where(hits); !slices.Equal(got, []string{"a/main/t1/m1", "a/main/t1/m2"}) &&
		!slices.Equal(got, []string{"a/main/t1/m2", "a/main/t1/m1"}) {
		t.Fatalf("Search(FSYNC) = %q, want messages 1 and 2 of turn 1", got)
	}
	h := hits[0]
	if h.Session != s.ID() || h.State != backing.StateActive || !h.Default || h.Time.IsZero() || h.Score == 0 {
		t.Errorf("hit %+v: want session %s, active, default branch, a time and a score", h, s.ID())
	}
	for _, h := range hits {
		if len(h.Marks) == 0 {
			t.Fatalf("hit %+v has no marks", h)
		}
		if m := h.Marks[0]; !strings.EqualFold(h.Snippet[m[0]:m[1]], "fsync") {
			t.Errorf("mark %v of %q is %q, want the word", m, h.Snippet, h.Snippet[m[0]:m[1]])
		}
	}
	wantHits(t, f, backing.Query{Text: "tmp.json"}, "a/main/t2/m4")
	wantHits(t, f, backing.Query{Text: "terse"}, "a/main/t1/m0")
	if hits := find(t, f, backing.Query{Text: "tool_use"}); len(hits) != 0 {
		t.Errorf("JSON syntax is indexed: %q", where(hits))
	}
}

// findSyntax: phrases, prefixes, NOT and OR mean what the query syntax
// (backing.ParseQuery) says.
func findSyntax(t *testing.T, st backing.Store) {
	f := finder(t, st)
	s := newSession(t, st, "a")
	appendOK(t, s, "", msg("user", "group commit batches fsyncs"),
		msg("assistant", "commit the group later"),
		msg("user", "grouping is not committing"))
	wantHits(t, f, backing.Query{Text: `"group commit"`}, "a/main/t1/m0")
	if got := where(find(t, f, backing.Query{Text: "group commit"})); len(got) != 2 {
		t.Errorf("Search(group commit) = %q, want messages 0 and 1", got)
	}
	if got := where(find(t, f, backing.Query{Text: "group*"})); len(got) != 3 {
		t.Errorf("Search(group*) = %q, want all three", got)
	}
	wantHits(t, f, backing.Query{Text: "commit NOT fsyncs"}, "a/main/t1/m1")
	wantHits(t, f, backing.Query{Text: "commit -later"}, "a/main/t1/m0")
	if got := where(find(t, f, backing.Query{Text: "batches OR later"})); len(got) != 2 {
		t.Errorf("Search(batches OR later) = %q, want messages 0 and 1", got)
	}
	if _, err := f.Search(backing.Query{Text: "NOT x"}); err == nil {
		t.Error("a query of NOT alone was answered")
	}
}

// findBranches: a branch's own messages are found with --branch all, under
// the branch's name, and not in a search of the default branch; a deleted
// branch's messages are found no more.
func findBranches(t *testing.T, st backing.Store) {
	f := finder(t, st)
	s := newSession(t, st, "a")
	appendOK(t, s, "", msg("user", "shared question"), msg("assistant", "shared answer"))
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, x.ID, msg("user", "forked question"))
	appendOK(t, s, "", msg("user", "mainline question"))
	wantHits(t, f, backing.Query{Text: "forked"})
	wantHits(t, f, backing.Query{Text: "forked", AllBranches: true}, "a/x/t2/m2")
	wantHits(t, f, backing.Query{Text: "shared question", AllBranches: true}, "a/main/t1/m0")
	wantHits(t, f, backing.Query{Text: "mainline"}, "a/main/t2/m2")
	hits := find(t, f, backing.Query{Text: "forked", AllBranches: true})
	if len(hits) == 1 && (hits[0].Default || hits[0].Branch != x.ID) {
		t.Errorf("hit %+v: want branch %s, not the default", hits[0], x.ID)
	}
	if err := s.DeleteBranch(x.ID); err != nil {
		t.Fatal(err)
	}
	wantHits(t, f, backing.Query{Text: "forked", AllBranches: true})
}

// findNamespace: hits name a session as it is named now; archived ones are
// found only when asked for, trashed ones never.
func findNamespace(t *testing.T, st backing.Store) {
	f := finder(t, st)
	appendOK(t, newSession(t, st, "a"), "", msg("user", "needle in a"))
	appendOK(t, newSession(t, st, "b"), "", msg("user", "needle in b"))
	appendOK(t, newSession(t, st, "c"), "", msg("user", "needle in c"))
	wantHits(t, f, backing.Query{Text: "needle in a"}, "a/main/t1/m0")
	if err := st.Rename("a", "a2"); err != nil {
		t.Fatal(err)
	}
	if err := st.Archive("b"); err != nil {
		t.Fatal(err)
	}
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	wantHits(t, f, backing.Query{Text: `"needle in a"`}, "a2/main/t1/m0")
	wantHits(t, f, backing.Query{Text: `"needle in b"`})
	hits := find(t, f, backing.Query{Text: `"needle in b"`, Archived: true})
	if len(hits) != 1 || hits[0].State != backing.StateArchived || hits[0].Name != "b" {
		t.Errorf("archived search = %+v, want b, archived", hits)
	}
	wantHits(t, f, backing.Query{Text: `"needle in c"`, Archived: true})
	if _, err := st.Restore("c", ""); err != nil {
		t.Fatal(err)
	}
	wantHits(t, f, backing.Query{Text: `"needle in c"`}, "c/main/t1/m0")
}

// findTitles: a title a person set and tags are found, as a hit on the
// session (Message -1); a title made from the first prompt is not a
// second hit for that prompt.
func findTitles(t *testing.T, st backing.Store) {
	f := finder(t, st)
	s := newSession(t, st, "a")
	appendOK(t, s, "", msg("user", "please refactor the parser"))
	wantHits(t, f, backing.Query{Text: "refactor"}, "a/main/t1/m0")
	if _, err := s.EditMeta([]byte(`{"id":"` + s.ID() + `","title":"Quarterly roadmap","tags":["planning"]}`)); err != nil {
		t.Fatal(err)
	}
	wantHits(t, f, backing.Query{Text: "roadmap"}, "a//t0/m-1")
	wantHits(t, f, backing.Query{Text: "planning"}, "a//t0/m-1")
}

// findFilters: role, time and limit narrow a search.
func findFilters(t *testing.T, st backing.Store) {
	f := finder(t, st)
	s := newSession(t, st, "a")
	old := []byte(`{"role":"user","content":"widget one","ts":"2020-01-01T00:00:00Z"}`)
	appendOK(t, s, "", old, msg("assistant", "widget two"), msg("user", "widget three"))
	if got := find(t, f, backing.Query{Text: "widget", Role: "assistant"}); len(got) != 1 || got[0].Message != 1 {
		t.Errorf("role assistant: %q", where(got))
	}
	if got := find(t, f, backing.Query{Text: "widget", Until: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)}); len(got) != 1 || got[0].Message != 0 {
		t.Errorf("until 2021: %q", where(got))
	}
	if got := find(t, f, backing.Query{Text: "widget", Since: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)}); len(got) != 2 {
		t.Errorf("since 2021: %q", where(got))
	}
	if got := find(t, f, backing.Query{Text: "widget", Limit: 2}); len(got) != 2 {
		t.Errorf("limit 2: %q", where(got))
	}
}

// findNewestTies: of matches that rank the same, the newest comes first.
func findNewestTies(t *testing.T, st backing.Store) {
	f := finder(t, st)
	for i, name := range []string{"a", "b", "c"} {
		line := fmt.Sprintf(`{"role":"user","content":"same words here","ts":"2026-01-0%dT00:00:00Z"}`, i+1)
		appendOK(t, newSession(t, st, name), "", []byte(line))
	}
	wantHits(t, f, backing.Query{Text: "same words"}, "c/main/t1/m0", "b/main/t1/m0", "a/main/t1/m0")
}

// findCatalog: every session, newest activity first, with its state and
// the count of its default branch's visible messages.
func findCatalog(t *testing.T, st backing.Store) {
	f := finder(t, st)
	a := newSession(t, st, "a")
	appendOK(t, a, "", qa("", 2)...)
	appendOK(t, a, "", event("e"))
	pastTick(time.Now())
	appendOK(t, newSession(t, st, "b"), "", qa("", 1)...)
	newSession(t, st, "c")
	if err := st.Trash("c"); err != nil {
		t.Fatal(err)
	}
	names := func(all bool) []string {
		es, err := f.Catalog(backing.CatalogQuery{All: all})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name+":"+e.State+fmt.Sprint(":", e.Messages))
		}
		return out
	}
	if got := names(false); !slices.Equal(got, []string{"b:active:2", "a:active:4"}) {
		t.Errorf("Catalog(false) = %q", got)
	}
	pastTick(time.Now())
	appendOK(t, a, "", msg("user", "later"))
	if got := names(false); !slices.Equal(got, []string{"a:active:5", "b:active:2"}) {
		t.Errorf("after an append to a: Catalog(false) = %q", got)
	}
	all := names(true)
	if len(all) != 3 || !slices.Contains(all, "c:trashed:0") {
		t.Errorf("Catalog(true) = %q, want c in the trash too", all)
	}
}

// findGroups: a catalog narrowed to a project or a tag lists the sessions
// of that group and of those below it, as CatalogQuery.Matches says, in
// the order of the whole catalog.
func findGroups(t *testing.T, st backing.Store) {
	f := finder(t, st)
	for _, s := range []struct {
		name, project string
		tags          []string
	}{
		{"a", "o/r", []string{"x"}},
		{"b", "o/site", []string{"x/y", "x/y"}},
		{"c", "p/q", []string{" x / z "}},
		{"d", "or/r", nil},
		{"e", "o/r", []string{"y"}},
	} {
		if _, _, err := st.Create(s.name, backing.Meta{Project: s.project, Tags: s.tags}); err != nil {
			t.Fatal(err)
		}
		pastTick(time.Now())
	}
	if err := st.Archive("e"); err != nil {
		t.Fatal(err)
	}
	names := func(q backing.CatalogQuery) []string {
		t.Helper()
		es, err := f.Catalog(q)
		if err != nil {
			t.Fatalf("Catalog(%+v): %v", q, err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name)
		}
		return out
	}
	for q, want := range map[backing.CatalogQuery][]string{
		{Project: "o"}:              {"b", "a"},
		{Project: "o/r"}:            {"a"},
		{Project: "o/r", All: true}: {"e", "a"},
		{Project: "o/re"}:           nil,
		{Project: "nowhere"}:        nil,
		{Tag: "x"}:                  {"c", "b", "a"},
		{Tag: "x/y"}:                {"b"},
		{Tag: "x/z"}:                {"c"},
		{Tag: "y", All: true}:       {"e"},
		{Tag: "y"}:                  nil,
	} {
		if got := names(q); !slices.Equal(got, want) {
			t.Errorf("Catalog(%+v) = %q, want %q", q, got, want)
		}
	}
}

// findOtherWriter: what another writer appends, forks or renames is found
// by the next search, with nothing told to this handle.
func findOtherWriter(t *testing.T, st backing.Store, again Again) {
	f := finder(t, st)
	s := newSession(t, st, "a")
	appendOK(t, s, "", msg("user", "first words"))
	wantHits(t, f, backing.Query{Text: "first"}, "a/main/t1/m0")
	other := again(t, st)
	s2, err := other.Session("a")
	if err != nil {
		t.Fatal(err)
	}
	appendOK(t, s2, "", msg("user", "second words"))
	wantHits(t, f, backing.Query{Text: "second"}, "a/main/t2/m1")
	if err := other.Rename("a", "renamed"); err != nil {
		t.Fatal(err)
	}
	appendOK(t, newSession(t, other, "n"), "", msg("user", "third words"))
	wantHits(t, f, backing.Query{Text: "words"}, "n/main/t1/m0", "renamed/main/t2/m1", "renamed/main/t1/m0")

	// A change the other writer has itself brought into the index leaves
	// nothing for this handle to catch up: its catalog must still show it.
	messages := func(f backing.Finder) int {
		t.Helper()
		es, err := f.Catalog(backing.CatalogQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if e.Name == "renamed" {
				return e.Messages
			}
		}
		t.Fatalf("Catalog(false) has no session renamed: %v", es)
		return 0
	}
	before := messages(f)
	appendOK(t, s2, "", msg("user", "fourth words"))
	if got := messages(finder(t, other)); got != before+1 {
		t.Fatalf("the other writer's catalog: %d messages after an append, want %d", got, before+1)
	}
	if got := messages(f); got != before+1 {
		t.Errorf("catalog after another writer's append it indexed: %d messages, want %d", got, before+1)
	}
}
