package importer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// runOne imports path into st and returns its one Result.
func runOne(t *testing.T, st backing.Store, path string) Result {
	t.Helper()
	var got []Result
	if err := New(st, Options{}).Run([]string{path}, func(r Result) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("Run gave %d results, want 1", len(got))
	}
	return got[0]
}

// A source imports into a session named for it; again unchanged, nothing
// is stored; grown, only its new lines are, after a last line still being
// written is left for later; rewritten, it is refused with ErrRewritten,
// naming the command that moves the session to the trash.
func TestRunGrowsAndRefusesRewrites(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	first := claudeLine("u1", "", "user", "Fix the parser") + "\n" + claudeLine("a1", "u1", "assistant", "done") + "\n"
	os.WriteFile(path, []byte(first), 0o600)
	if r := runOne(t, st, path); r.Err != nil || !r.Stored || r.Name != "fix-the-parser" || r.Path != path {
		t.Fatalf("first import: %+v", r)
	}
	if r := runOne(t, st, path); r.Err != nil || r.Stored || r.Name != "fix-the-parser" {
		t.Errorf("unchanged import: %+v", r)
	}
	grown := first + claudeLine("u2", "a1", "user", "and the lexer") + "\n"
	os.WriteFile(path, []byte(grown+`{"type":"assist`), 0o600)
	if r := runOne(t, st, path); r.Err != nil || !r.Stored {
		t.Errorf("grown import: %+v", r)
	}
	s, err := st.Session("fix-the-parser")
	if err != nil {
		t.Fatal(err)
	}
	if data, _, err := Original(s); err != nil || string(data) != grown {
		t.Errorf("Original after growth: %q, %v; want %q", data, err, grown)
	}
	m, _ := s.Meta()
	if o, ok := OriginOf(m); !ok || !o.Complete || !o.holds([]byte(grown)) || o.Path != path {
		t.Errorf("origin after growth: %+v", o)
	}

	os.WriteFile(path, []byte(strings.Replace(grown, "Fix", "Mend", 1)), 0o600)
	var got Result
	New(st, Options{RemoveCommand: func(n string) string { return "RM " + n }}).Run([]string{path}, func(r Result) { got = r })
	if !errors.Is(got.Err, ErrRewritten) || !strings.Contains(got.Err.Error(), "(RM fix-the-parser)") || got.Stored {
		t.Errorf("rewritten import: %+v", got)
	}
}

// Forks are stored parents first; one whose parent is not among them keeps
// its place after the rest.
func TestParentsFirst(t *testing.T) {
	forks := []Fork{{Name: "c", From: "b"}, {Name: "x", From: "gone"}, {Name: "b", From: "a"}, {Name: "a", From: ""}}
	var names []string
	for _, f := range parentsFirst(forks) {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "a b c x" {
		t.Errorf("parentsFirst: %s, want a b c x", got)
	}
}

// A session's own file comes before its subagents' files, whatever their
// names.
func TestSourceFilesSubagentsLast(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "subagents"), 0o755)
	for _, p := range []string{"a/subagents/agent-1.jsonl", "b.jsonl", "a.jsonl", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, p), nil, 0o600)
	}
	files, err := SourceFiles([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		files[i], _ = filepath.Rel(dir, files[i])
	}
	if got := strings.Join(files, " "); got != "a.jsonl b.jsonl a/subagents/agent-1.jsonl" {
		t.Errorf("SourceFiles: %s", got)
	}
}
