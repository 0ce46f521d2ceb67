package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// syncFixture is an agent's folder of two sessions, a store, and what
// Syncers report into it.
type syncFixture struct {
	t       *testing.T
	st      backing.Store
	folder  string
	reports []Result
}

func newSyncFixture(t *testing.T) *syncFixture {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &syncFixture{t: t, st: st, folder: t.TempDir()}
	f.write("proj/a.jsonl", line("a", "a1", "", "user", "Fix the parser")+line("a", "a2", "a1", "assistant", "done"))
	f.write("proj/b.jsonl", line("b", "b1", "", "user", "Write the lexer"))
	return f
}

func (f *syncFixture) write(rel, data string) string {
	p := filepath.Join(f.folder, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// syncer is a Syncer as a new sync process makes it: nothing seen yet.
func (f *syncFixture) syncer() (*Syncer, *Importer) {
	imp := New(f.st, Options{Sync: true})
	return NewSyncer(imp, []string{f.folder}, nil, func(r Result) { f.reports = append(f.reports, r) }), imp
}

func (f *syncFixture) scan() ScanCounts {
	f.t.Helper()
	y, _ := f.syncer()
	c, err := y.Scan()
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

func (f *syncFixture) origin(name string) Origin {
	f.t.Helper()
	s, err := f.st.Session(name)
	if err != nil {
		f.t.Fatal(err)
	}
	m, err := s.Meta()
	if err != nil {
		f.t.Fatal(err)
	}
	o, _ := OriginOf(m)
	return o
}

func (f *syncFixture) contents(name string) []string {
	f.t.Helper()
	s, err := f.st.Session(name)
	if err != nil {
		f.t.Fatal(err)
	}
	return messagesOf(f.t, s)
}

// messagesOf is the content of every message of s's default branch.
func messagesOf(t *testing.T, s backing.Session) []string {
	t.Helper()
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		var l struct{ Role, Content string }
		if json.Unmarshal(m.Raw, &l) == nil && l.Role != EventRole {
			out = append(out, l.Content)
		}
	}
	return out
}

// line is a Claude Code line of session sid.
func line(sid, uuid, parent, typ, content string) string {
	return strings.Replace(claudeLine(uuid, parent, typ, content), `"sessionId":"s1"`, `"sessionId":"`+sid+`"`, 1) + "\n"
}

// A rescan by a new process of files unchanged since they were stored
// reads and hashes them but decodes none; a grown one is decoded and
// grows its session.
func TestSyncRescanDecodesNothingUnchanged(t *testing.T) {
	f := newSyncFixture(t)
	if c := f.scan(); c.Files != 2 || c.Stored != 2 {
		t.Fatalf("first scan: %+v", c)
	}
	y, imp := f.syncer()
	c, err := y.Scan()
	if err != nil || c.Files != 2 || c.Unchanged != 2 || c.Stored != 0 || imp.Decoded != 0 {
		t.Fatalf("rescan of unchanged files: %+v, %d decoded, %v", c, imp.Decoded, err)
	}
	if c, _ := y.Scan(); c.Unchanged != 2 || imp.Decoded != 0 {
		t.Errorf("second scan of the same syncer: %+v", c)
	}
	f.write("proj/b.jsonl", line("b", "b1", "", "user", "Write the lexer")+line("b", "b2", "b1", "assistant", "written"))
	if c, _ := y.Scan(); c.Stored != 1 || c.Unchanged != 1 || imp.Decoded != 1 {
		t.Errorf("scan after b grew: %+v, %d decoded", c, imp.Decoded)
	}
	if got := f.contents("write-the-lexer"); !slices.Equal(got, []string{"Write the lexer", "written"}) {
		t.Errorf("grown session: %q", got)
	}
}

// The quick check: a file of the size and time recorded when it was
// stored whole is not read at all (as rsync, it cannot tell a rewrite
// that keeps both, which this test makes to show it read nothing); a
// session imported before the time was recorded gets it at the next
// sync.
func TestSyncQuickCheck(t *testing.T) {
	f := newSyncFixture(t)
	f.scan()
	b := filepath.Join(f.folder, "proj", "b.jsonl")
	fi, _ := os.Stat(b)
	o := f.origin("write-the-lexer")
	if o.MTime != fileTime(fi) {
		t.Fatalf("origin.mtime = %q, want %q", o.MTime, fileTime(fi))
	}
	same := strings.Replace(line("b", "b1", "", "user", "Write the lexer"), "lexer", "LEXER", 1)
	os.WriteFile(b, []byte(same), 0o600)
	os.Chtimes(b, fi.ModTime(), fi.ModTime())
	if c := f.scan(); c.Unchanged != 2 || c.Stored != 0 || c.Failed != 0 {
		t.Errorf("scan of a file of the same size and time: %+v (it was read)", c)
	}

	// Without a recorded time, the file is read and hashed, and the time
	// recorded then.
	s, _ := f.st.Session("fix-the-parser")
	m, _ := s.Meta()
	setOrigin(s, m, func(o *Origin) { o.MTime = "" })
	y, imp := f.syncer()
	if c, _ := y.Scan(); c.Unchanged != 2 || imp.Decoded != 0 || f.origin("fix-the-parser").MTime == "" {
		t.Errorf("scan without a recorded time: %+v, %d decoded, mtime %q", c, imp.Decoded, f.origin("fix-the-parser").MTime)
	}
}

// A source the agent deletes leaves its session whole; meta.json says
// when it was found gone, once; back again, it is no longer gone.
func TestSyncKeepsDeletedSources(t *testing.T) {
	f := newSyncFixture(t)
	f.scan()
	a := filepath.Join(f.folder, "proj", "a.jsonl")
	data, _ := os.ReadFile(a)
	os.Remove(a)
	before := time.Now().UTC().Truncate(time.Second)
	if c := f.scan(); c.Gone != 1 || c.Files != 1 {
		t.Fatalf("scan after the delete: %+v", c)
	}
	o := f.origin("fix-the-parser")
	when, err := time.Parse(time.RFC3339, o.Gone)
	if err != nil || when.Before(before) {
		t.Errorf("origin.gone = %q, want a time from %v", o.Gone, before)
	}
	if got := f.contents("fix-the-parser"); !slices.Equal(got, []string{"Fix the parser", "done"}) {
		t.Errorf("session of a deleted source: %q", got)
	}
	if r := f.reports[len(f.reports)-1]; !r.Gone || r.Name != "fix-the-parser" || r.Path != a {
		t.Errorf("report of the gone source: %+v", r)
	}
	if c := f.scan(); c.Gone != 0 {
		t.Errorf("a source already gone counts again: %+v", c)
	}
	os.WriteFile(a, data, 0o600)
	if c := f.scan(); c.Stored != 0 || f.origin("fix-the-parser").Gone != "" {
		t.Errorf("back again: %+v, gone %q", c, f.origin("fix-the-parser").Gone)
	}
}

// A source that moves (Codex archives a rollout) is the same source: its
// session follows it and is not taken for gone.
func TestSyncFollowsMovedSources(t *testing.T) {
	f := newSyncFixture(t)
	f.scan()
	from := filepath.Join(f.folder, "proj", "a.jsonl")
	to := filepath.Join(f.folder, "archived", "a.jsonl")
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	if c := f.scan(); c.Gone != 0 || c.Stored != 0 {
		t.Errorf("scan after the move: %+v", c)
	}
	if o := f.origin("fix-the-parser"); o.Path != to || o.Gone != "" {
		t.Errorf("origin after the move: path %q, gone %q", o.Path, o.Gone)
	}
	if names, _ := f.st.Names(); len(names) != 2 {
		t.Errorf("sessions after the move: %q", names)
	}
}

// A source rewritten other than by growing is stored again as a new
// session; the old one keeps what it was and names the new one, and the
// source grows the new one from then on.
func TestSyncKeepsRewrittenSourcesAsNewSessions(t *testing.T) {
	f := newSyncFixture(t)
	f.scan()
	rewritten := line("a", "a1", "", "user", "Fix the parser") + line("a", "a3", "a1", "assistant", "redone")
	f.write("proj/a.jsonl", rewritten)
	if c := f.scan(); c.Stored != 1 || c.Failed != 0 {
		t.Fatalf("scan after the rewrite: %+v, %+v", c, f.reports)
	}
	r := f.reports[len(f.reports)-1]
	if !r.New || r.Replaced != "fix-the-parser" || r.Name == r.Replaced {
		t.Fatalf("report of the rewrite: %+v", r)
	}
	if got := f.contents("fix-the-parser"); !slices.Equal(got, []string{"Fix the parser", "done"}) {
		t.Errorf("old session after the rewrite: %q", got)
	}
	if got := f.contents(r.Name); !slices.Equal(got, []string{"Fix the parser", "redone"}) {
		t.Errorf("new session: %q", got)
	}
	newS, _ := f.st.Session(r.Name)
	if o := f.origin("fix-the-parser"); o.ReplacedBy != newS.ID() {
		t.Errorf("old origin's replaced_by = %q, want %q", o.ReplacedBy, newS.ID())
	}
	if c := f.scan(); c.Stored != 0 || c.Unchanged != 2 {
		t.Errorf("rescan after the rewrite: %+v", c)
	}
	f.write("proj/a.jsonl", rewritten+line("a", "a4", "a3", "user", "thanks"))
	if c := f.scan(); c.Stored != 1 {
		t.Errorf("scan after growth: %+v", c)
	}
	if got := f.contents(r.Name); len(got) != 3 {
		t.Errorf("new session after growth: %q", got)
	}
	if got := f.contents("fix-the-parser"); len(got) != 2 {
		t.Errorf("old session after growth: %q", got)
	}
}

// A plain import (no Options.Sync) refuses a rewritten source, as
// before: its user decides.
func TestImportRefusesWhatSyncKeeps(t *testing.T) {
	f := newSyncFixture(t)
	f.scan()
	p := f.write("proj/a.jsonl", line("a", "a1", "", "user", "other"))
	if r := runOne(t, f.st, p); r.Err == nil || r.Replaced != "" {
		t.Errorf("import of a rewritten source: %+v", r)
	}
}

// A folder that cannot be listed fails the scan, and no source is taken
// for gone because of it.
func TestSyncUnlistedFolderLosesNothing(t *testing.T) {
	f := newSyncFixture(t)
	f.scan()
	moved := f.folder + ".away"
	if err := os.Rename(f.folder, moved); err != nil {
		t.Fatal(err)
	}
	y, _ := f.syncer()
	if _, err := y.Scan(); err == nil {
		t.Error("scan of a folder that is not there: no error")
	}
	if o := f.origin("fix-the-parser"); o.Gone != "" {
		t.Errorf("a source taken for gone when its folder could not be listed: %q", o.Gone)
	}
}

// Watch catches up at start, imports a line soon after the agent writes
// it, a file in a folder made later too, and records a deleted file.
func TestSyncWatch(t *testing.T) {
	f := newSyncFixture(t)
	reports := make(chan Result, 100)
	y := NewSyncer(New(f.st, Options{Sync: true}), []string{f.folder}, nil, func(r Result) { reports <- r })
	stop := make(chan struct{})
	scans := make(chan ScanCounts, 10)
	done := make(chan error, 1)
	go func() {
		done <- y.Watch(stop, time.Hour, func(c ScanCounts, err error) {
			if err != nil {
				t.Error(err)
			}
			scans <- c
		})
	}()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if c := <-scans; c.Stored != 2 {
		t.Fatalf("catch-up scan: %+v", c)
	}
	drain(reports, 2)
	wait := func(what string, ok func(Result) bool) Result {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case r := <-reports:
				if ok(r) {
					return r
				}
			case <-timeout:
				t.Fatalf("no report of %s", what)
			}
		}
	}

	a := filepath.Join(f.folder, "proj", "a.jsonl")
	fh, err := os.OpenFile(a, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(line("a", "a3", "a2", "user", "and the tests"))
	fh.Close()
	wait("a's new line", func(r Result) bool { return r.Name == "fix-the-parser" && r.Stored && !r.New })
	if got := f.contents("fix-the-parser"); !slices.Contains(got, "and the tests") {
		t.Errorf("after the append: %q", got)
	}

	f.write("later/deep/c.jsonl", line("c", "c1", "", "user", "Made later"))
	wait("the file in a new folder", func(r Result) bool { return r.New && strings.HasSuffix(r.Path, "c.jsonl") })

	os.Remove(filepath.Join(f.folder, "proj", "b.jsonl"))
	wait("b gone", func(r Result) bool { return r.Gone && r.Name == "write-the-lexer" })
	if o := f.origin("write-the-lexer"); o.Gone == "" {
		t.Error("b's origin does not say it is gone")
	}
}

// drain takes n reports.
func drain(ch chan Result, n int) {
	for range n {
		<-ch
	}
}

// An awaited folder (an agent's own, before it first ran) is no error;
// Watch takes the sessions of it once the agent makes it, however deep
// the folders it makes on the way.
func TestSyncWatchAwaitsFolders(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	projects := filepath.Join(home, ".claude", "projects")
	reports := make(chan Result, 10)
	y := NewSyncer(New(st, Options{Sync: true}), nil, []string{projects}, func(r Result) { reports <- r })
	if c, err := y.Scan(); err != nil || c.Files != 0 {
		t.Fatalf("scan of a folder not there yet: %+v, %v", c, err)
	}
	stop := make(chan struct{})
	scans := make(chan error, 10)
	done := make(chan error, 1)
	go func() { done <- y.Watch(stop, time.Hour, func(_ ScanCounts, err error) { scans <- err }) }()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if err := <-scans; err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(projects, "-home-me")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(line("s", "s1", "", "user", "First run")), 0o600)
	select {
	case r := <-reports:
		if !r.New || r.Name != "first-run" {
			t.Errorf("report: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session in the folder the agent made was not imported")
	}
}
