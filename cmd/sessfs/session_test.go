package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestNewAndLs(t *testing.T) {
	s := newStore(t)
	if out := s.ok("ls"); out != "" {
		t.Fatalf("ls of an empty store: %q", out)
	}
	if out := s.ok("new", "--title", "Fix the\tbuild", "--tag", "a", "--tag", "b", "--model", "m1", "--cwd", "/tmp/proj", "work"); out != "work\n" {
		t.Fatalf("new printed %q", out)
	}
	gen := strings.TrimSpace(s.ok("new"))
	if !regexp.MustCompile(`^\d{8}-\d{4}-[0-9a-f]{6}$`).MatchString(gen) {
		t.Fatalf("generated name %q", gen)
	}
	s.ok("append", "work", "hello")

	out := s.ok("ls")
	rows := lines(out)
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "NAME") || !strings.Contains(rows[0], "LAST ACTIVITY") || strings.Contains(rows[0], "STATE") {
		t.Fatalf("ls:\n%s", out)
	}
	// The order of two sessions active within the same few milliseconds
	// is not defined (file times are coarse), so rows are found by name.
	work, genRow := -1, -1
	for i, r := range rows[1:] {
		switch {
		case regexp.MustCompile(`^work +1 +- +- +\d{4}-\d\d-\d\d \d\d:\d\d +tmp/proj +Fix the build$`).MatchString(r):
			work = i + 1
		case regexp.MustCompile(`^` + gen + ` +0 +- +- +\d{4}-\d\d-\d\d \d\d:\d\d +\(none\) *$`).MatchString(r):
			genRow = i + 1
		}
	}
	if work < 0 || genRow < 0 {
		t.Fatalf("ls rows:\n%s", out)
	}
	// The columns line up.
	if strings.Index(rows[0], "MESSAGES") != strings.Index(rows[work], "1") {
		t.Errorf("columns not aligned:\n%s", out)
	}

	list := s.sessions(false)
	if len(list) != 2 {
		t.Fatalf("ls --json: %+v", list)
	}
	w, g := list[0], list[1]
	if w.Name != "work" {
		w, g = g, w
	}
	if w.Name != "work" || w.Messages != 1 || w.Title != "Fix the\tbuild" || w.State != "active" ||
		w.Model != "m1" || w.Cwd != "/tmp/proj" || strings.Join(w.Tags, ",") != "a,b" || w.ID == "" || w.LastActivity.IsZero() || w.Created.IsZero() {
		t.Fatalf("ls --json row: %+v", w)
	}
	if g.Name != gen || g.Messages != 0 || g.Tags == nil {
		t.Fatalf("ls --json row of an empty session: %+v", g)
	}
	s.fails(1, `session "work": already exists`, "", "new", "work")
	s.fails(1, "invalid name", "", "new", ".hidden")
	s.fails(1, "reserved", "", "new", "trash")
}

func TestNewRelativeCwd(t *testing.T) {
	s := newStore(t)
	s.ok("new", "--cwd", "some/dir", "x")
	x, _ := s.session("x", "active")
	if !strings.HasPrefix(x.Cwd, "/") || !strings.HasSuffix(x.Cwd, "/some/dir") {
		t.Fatalf("cwd %q should be made absolute", x.Cwd)
	}
}

func TestRename(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("new", "b")
	s.ok("append", "a", "kept")
	s.ok("rename", "a", "c")
	if _, ok := s.session("a", "active"); ok {
		t.Fatal("old name still listed")
	}
	if c, ok := s.session("c", "active"); !ok || c.Messages != 1 {
		t.Fatalf("renamed session: %+v", c)
	}
	if got := contents(s.messages("c")); len(got) != 1 || got[0] != "kept" {
		t.Fatalf("messages after rename: %v", got)
	}
	s.fails(1, `session "b": already exists`, "", "rename", "c", "b")
}

func TestRmTrashRestore(t *testing.T) {
	s := newStore(t)
	s.ok("new", "--title", "doomed", "a")
	s.ok("append", "a", "precious")
	a, _ := s.session("a", "active")

	out := s.ok("rm", "a")
	if !strings.Contains(out, `moved "a" to the trash`) || !strings.Contains(out, "sessfs restore --store "+s.dir+" "+a.ID) {
		t.Fatalf("rm should say where and how to restore: %q", out)
	}
	if len(s.sessions(false)) != 0 {
		t.Fatal("trashed session still listed by ls")
	}
	if x, ok := s.session("a", "trashed"); !ok || x.Trashed.IsZero() {
		t.Fatalf("ls --all: %+v", x)
	}
	out = s.ok("trash")
	rows := lines(out)
	if len(rows) != 2 || !strings.HasPrefix(rows[0], "ID") || !strings.Contains(rows[0], "TRASHED") ||
		!regexp.MustCompile("^"+a.ID+` +a +\d{4}-\d\d-\d\d \d\d:\d\d +doomed$`).MatchString(rows[1]) {
		t.Fatalf("trash:\n%s", out)
	}

	// The name is free again; restoring under it needs --as.
	s.ok("new", "a")
	s.fails(1, "already exists", "", "restore", "a")
	if out := s.ok("restore", "--as", "a2", a.ID); out != "a2\n" {
		t.Fatalf("restore printed %q", out)
	}
	if got := contents(s.messages("a2")); len(got) != 1 || got[0] != "precious" {
		t.Fatalf("restored messages: %v", got)
	}
	if out := s.ok("trash"); out != "" {
		t.Fatalf("trash should be empty: %q", out)
	}

	// Restore by name; rm of several names goes on after a bad one.
	r := s.run("rm", "a", "nope", "a2")
	if r.code != 1 || !strings.Contains(r.stderr, `session "nope": not found`) || strings.Count(r.stdout, "moved") != 2 {
		t.Fatalf("rm a nope a2: %v", r)
	}
	if out := s.ok("restore", "a2"); out != "a2\n" {
		t.Fatalf("restore by name printed %q", out)
	}
}

func TestArchiveUnarchive(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("new", "b")
	s.ok("archive", "a", "b")
	if out := s.ok("ls"); out != "" {
		t.Fatalf("archived sessions listed: %q", out)
	}
	out := s.ok("ls", "--all")
	if !strings.Contains(lines(out)[0], "STATE") || !regexp.MustCompile(`(?m)^a +0 +- +- +\S+ \S+ +archived`).MatchString(out) {
		t.Fatalf("ls --all:\n%s", out)
	}
	// Archived sessions can still be read and written.
	s.ok("append", "a", "still here")
	if got := contents(s.messages("a")); len(got) != 1 {
		t.Fatalf("show of an archived session: %v", got)
	}
	s.fails(1, `session "a" is already archived`, "", "archive", "a")
	s.ok("unarchive", "a")
	if _, ok := s.session("a", "active"); !ok {
		t.Fatal("unarchived session not active")
	}
	s.fails(1, `session "a" is already active`, "", "unarchive", "a")
}

// archive and unarchive say what became of each session, as rm does: with
// one bad name among several, the others are still done and reported.
// Before, the good ones changed without a word and only the error showed.
func TestArchiveReportsEach(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("new", "b")
	for _, cmd := range []string{"archive", "unarchive"} {
		r := s.run(cmd, "a", "nosuch", "b")
		want := fmt.Sprintf("%sd \"a\"", cmd)
		if r.code != 1 || len(lines(r.stdout)) != 2 || !strings.HasPrefix(lines(r.stdout)[0], want) ||
			!strings.HasPrefix(lines(r.stdout)[1], fmt.Sprintf("%sd \"b\"", cmd)) ||
			r.stderr != fmt.Sprintf("sessfs %s: session \"nosuch\": not found\n", cmd) {
			t.Errorf("%s a nosuch b: %v", cmd, r)
		}
	}
	r := s.run("archive", "a")
	if want := "archived \"a\"; bring it back with: sessfs unarchive --store " + s.dir + " a\n"; r.stdout != want {
		t.Errorf("archive a printed %q, want %q", r.stdout, want)
	}
}

func TestSweep(t *testing.T) {
	s := newStore(t)
	if out := s.ok("sweep"); !strings.HasPrefix(out, "nothing to do: no policy") {
		t.Fatalf("sweep with no policy: %q", out)
	}
	s.ok("new", "idle")
	s.ok("new", "gone")
	gone, _ := s.session("gone", "active")
	s.ok("rm", "gone")

	out := s.ok("sweep", "--archive-after", "1ns", "--dry-run")
	if out != "would archive idle\n" {
		t.Fatalf("dry run: %q", out)
	}
	if _, ok := s.session("idle", "active"); !ok {
		t.Fatal("a dry run archived")
	}
	if out := s.ok("sweep", "--archive-after", "1ns", "--purge-after", "30d"); out != "archived idle\n" {
		t.Fatalf("sweep: %q", out)
	}
	if _, ok := s.session("idle", "archived"); !ok {
		t.Fatal("not archived")
	}
	if out := s.ok("sweep", "--purge-after", "1ns"); out != "purged "+gone.ID+"\n" {
		t.Fatalf("purge: %q", out)
	}
	if out := s.ok("trash"); out != "" {
		t.Fatalf("trash after purge: %q", out)
	}
	if out := s.ok("sweep", "--archive-after", "30d"); out != "nothing to sweep\n" {
		t.Fatalf("sweep with nothing to do: %q", out)
	}
	s.fails(2, `--purge-after: invalid duration "soon"`, "", "sweep", "--purge-after", "soon")
}

func TestFsckCleanStore(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("append", "a", "hi")
	s.ok("fork", "a", "x")
	out := s.ok("fsck")
	if out != "checked 1 session: no problems\n" {
		t.Fatalf("fsck: %q", out)
	}
	out = s.ok("fsck", "--json")
	if !strings.Contains(out, `"ok": true`) || !strings.Contains(out, `"problems": []`) {
		t.Fatalf("fsck --json: %s", out)
	}
}

// A torn last line (a crash mid-append) is listed as a leftover of a crash,
// no damage (fsck exits 0), and tidied by --repair.
func TestFsckRepairsTornTail(t *testing.T) {
	s := newStore(t)
	s.ok("new", "a")
	s.ok("append", "a", "hi")
	logs, _ := filepath.Glob(filepath.Join(s.dir, "sessions", "*", "logs", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs: %v", logs)
	}
	f, err := os.OpenFile(logs[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"role":"user","con`)
	f.Close()

	r := s.run("fsck")
	rows := lines(r.stdout)
	if r.code != 0 || len(rows) != 2 || !strings.Contains(rows[0], "torn last line") || !strings.HasSuffix(rows[0], "[left by a crash, no damage; --repair tidies it]") ||
		rows[1] != "checked 1 session: no problems; 1 leftover of a crash (no damage; --repair tidies it)" {
		t.Fatalf("fsck of a torn log: %v", r)
	}
	r = s.run("fsck", "--repair")
	if r.code != 0 || !strings.Contains(r.stdout, "[repaired]") || !strings.Contains(r.stdout, "1 leftover of a crash tidied") {
		t.Fatalf("fsck --repair: %v", r)
	}
	if out := s.ok("fsck"); !strings.HasSuffix(out, "no problems\n") {
		t.Fatalf("fsck after repair: %q", out)
	}
	if got := contents(s.messages("a")); len(got) != 1 || got[0] != "hi" {
		t.Fatalf("messages after repair: %v", got)
	}
}

// A session that cannot be read is still listed, with its error.
func TestLsShowsBrokenSession(t *testing.T) {
	s := newStore(t)
	s.ok("new", "good")
	s.ok("new", "bad")
	bad, _ := s.session("bad", "active")
	if err := os.WriteFile(filepath.Join(s.dir, "sessions", bad.ID, "meta.json"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := s.ok("ls")
	if !regexp.MustCompile(`(?m)^bad .*error: .*meta\.json`).MatchString(out) || !strings.Contains(out, "good") {
		t.Fatalf("ls:\n%s", out)
	}
	var found bool
	for _, x := range s.sessions(false) {
		if x.Name == "bad" {
			found = x.Error != "" && x.ID == bad.ID
		}
	}
	if !found {
		t.Fatalf("ls --json lacks the broken session's error:\n%s", s.ok("ls", "--json"))
	}
	if r := s.run("fsck"); r.code != 1 || !strings.Contains(r.stdout, bad.ID+" sessions/"+bad.ID+"/meta.json: unreadable") {
		t.Fatalf("fsck of a broken meta.json: %v", r)
	}
}
