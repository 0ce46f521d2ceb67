package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// make creates session name in the store itself, with meta m and
// messages msgs, created a minute before at and last active at, as an
// import keeps them: tests order sessions without waiting for the clock.
func (s *store) make(name string, m backing.Meta, at time.Time, msgs ...string) {
	s.t.Helper()
	st, err := filestore.Open(s.dir, filestore.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	m.Created = at.Add(-time.Minute)
	sess, _, err := st.Create(name, m)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, c := range msgs {
		raw, _ := json.Marshal(map[string]string{"role": "user", "content": c})
		if err := sess.AppendID("", [][]byte{raw}); err != nil {
			s.t.Fatal(err)
		}
	}
	b, err := sess.Branch("")
	if err == nil {
		err = sess.Backdate(b.ID, at)
	}
	if err != nil {
		s.t.Fatal(err)
	}
}

// gitRepo makes a folder that is a git checkout of remote url.
func gitRepo(t *testing.T, url string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "checkout")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	config := "[remote \"origin\"]\n\turl = " + url + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// names is the first column of a table's rows.
func names(out string) []string {
	var ns []string
	for _, r := range lines(out)[1:] {
		ns = append(ns, strings.Fields(r)[0])
	}
	return ns
}

// lsFixture: a (a checkout of O/Alpha, the largest), b (tagged), c (no
// cwd), each newer than the one before; d archived.
func lsFixture(t *testing.T) *store {
	s := newStore(t)
	now := time.Now()
	remote, _ := json.Marshal("git@github.com:O/Alpha.git")
	s.make("a", backing.Meta{Title: "first", Cwd: "/src/alpha", Extra: map[string]json.RawMessage{backing.RemoteKey: remote}},
		now.Add(-3*time.Hour), strings.Repeat("long ", 200), "more")
	s.make("b", backing.Meta{Cwd: "/x/y/proj", Tags: []string{"t1", "t1/sub"}}, now.Add(-2*time.Hour), "short")
	s.make("c", backing.Meta{Tags: []string{"t2"}}, now.Add(-time.Hour))
	s.make("d", backing.Meta{}, now.Add(-4*time.Hour))
	s.ok("archive", "d")
	return s
}

// new --cwd records the git remote of a checkout, which names the
// project: the same in a second checkout elsewhere.
func TestNewRecordsRemote(t *testing.T) {
	s := newStore(t)
	s.ok("new", "--cwd", gitRepo(t, "git@github.com:O/Alpha.git"), "one")
	s.ok("new", "--cwd", gitRepo(t, "https://github.com/o/alpha"), "two")
	s.ok("new", "--cwd", t.TempDir(), "plain")
	for _, x := range s.sessions(false) {
		if want := map[string]string{"one": "o/alpha", "two": "o/alpha"}[x.Name]; want != "" && x.Project != want ||
			x.Name == "plain" && x.Project == "o/alpha" {
			t.Errorf("project of %s: %q", x.Name, x.Project)
		}
	}
}

func TestLsOrderAndColumns(t *testing.T) {
	s := lsFixture(t)
	out := s.ok("ls")
	rows := lines(out)
	if !regexp.MustCompile(`^NAME +MESSAGES +TOKENS +COST +LAST ACTIVITY +PROJECT +TITLE$`).MatchString(rows[0]) {
		t.Fatalf("ls header: %q", rows[0])
	}
	if got := names(out); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("ls order %q, want newest first:\n%s", got, out)
	}
	if !regexp.MustCompile(`^a +2 +- +- +\d{4}-\d\d-\d\d \d\d:\d\d +o/alpha +first$`).MatchString(rows[3]) ||
		!regexp.MustCompile(`^b +1 +- +- +\S+ \S+ +y/proj +short$`).MatchString(rows[2]) ||
		!regexp.MustCompile(`^c +0 +- +- +\S+ \S+ +\(none\) *$`).MatchString(rows[1]) {
		t.Errorf("ls rows:\n%s", out)
	}
	if strings.Index(rows[0], "PROJECT") != strings.Index(rows[3], "o/alpha") {
		t.Errorf("columns not aligned:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--sort", "recent"}, []string{"c", "b", "a"}},
		{[]string{"--sort", "name"}, []string{"a", "b", "c"}},
		{[]string{"--sort", "size"}, []string{"a", "b", "c"}},
		{[]string{"--sort", "tokens"}, []string{"c", "b", "a"}}, // none spent: newest first
		{[]string{"-n", "2"}, []string{"c", "b"}},
		{[]string{"--sort", "name", "-n", "1"}, []string{"a"}},
		{[]string{"--project", "o/alpha"}, []string{"a"}},
		{[]string{"--project", "Alpha"}, []string{"a"}},
		{[]string{"--project", "y"}, []string{"b"}},
		{[]string{"--project", "(none)"}, []string{"c"}},
		{[]string{"--tag", "t1"}, []string{"b"}},
		{[]string{"--tag", "t1/sub"}, []string{"b"}},
		{[]string{"--agent", "sessfs", "--tag", "t2"}, []string{"c"}},
		{[]string{"--all", "--sort", "name"}, []string{"a", "b", "c", "d"}},
	} {
		if got := names(s.ok("ls", c.args...)); !slices.Equal(got, c.want) {
			t.Errorf("ls %v = %q, want %q", c.args, got, c.want)
		}
	}
	for _, args := range [][]string{{"--tag", "t"}, {"--agent", "codex"}, {"--project", "alp"}} {
		if out := s.ok("ls", args...); out != "" {
			t.Errorf("ls %v matches nothing, printed %q", args, out)
		}
	}
	if out := s.ok("ls", "--all", "--project", "(none)"); !regexp.MustCompile(`(?m)^d +0 +- +- +\S+ \S+ +archived +\(none\)`).MatchString(out) {
		t.Errorf("ls --all:\n%s", out)
	}
	s.fails(2, `--sort "size,name": recent, name, size or tokens`, "", "ls", "--sort", "size,name")
	s.fails(2, "-n must be a positive number", "", "ls", "-n", "-1")
	s.fails(2, `--tag "/": no tag could be named so`, "", "ls", "--tag", "/")
	s.fails(2, `--tag " ": no tag could be named so`, "", "last", "--tag", " ")
}

// ls --json has every field of each session, the catalog's and the
// meta's, in the order of the table.
func TestLsJSON(t *testing.T) {
	s := lsFixture(t)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(s.ok("ls", "--json", "--sort", "size")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0]["name"] != "a" {
		t.Fatalf("ls --json --sort size: %v", rows)
	}
	a := rows[0]
	for _, key := range []string{"name", "id", "state", "title", "agent", "project", "tags", "messages", "bytes",
		"tokens", "usage", "last_activity", "created", "updated", "cwd"} {
		if _, ok := a[key]; !ok {
			t.Errorf("ls --json lacks %q: %v", key, a)
		}
	}
	usage, _ := a["usage"].(map[string]any)
	if a["agent"] != "sessfs" || a["project"] != "o/alpha" || a["bytes"].(float64) < 1000 || a["tokens"] != 0.0 ||
		len(usage) != 5 || usage["cache_read"] != 0.0 || a["cwd"] != "/src/alpha" {
		t.Errorf("ls --json row of a: %v", a)
	}
	if tags := rows[1]["tags"].([]any); len(tags) != 2 || rows[2]["tags"].([]any)[0] != "t2" {
		t.Errorf("tags: %v, %v", rows[1]["tags"], rows[2]["tags"])
	}
}

func TestLast(t *testing.T) {
	s := lsFixture(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "c"},
		{[]string{"--project", "alpha"}, "a"},
		{[]string{"--tag", "t1"}, "b"},
	} {
		if got := s.ok("last", c.args...); got != c.want+"\n" {
			t.Errorf("last %v = %q, want %q", c.args, got, c.want)
		}
	}
	s.ok("append", "a", "now a is the newest")
	if got := s.ok("last"); got != "a\n" {
		t.Errorf("last after an append to a = %q", got)
	}
	s.fails(1, `no session of project "nope"`, "", "last", "--project", "nope")
	empty := newStore(t)
	empty.fails(1, "no session", "", "last")
}

// Every command that takes SESSION takes a name, an id, or a prefix of
// either that names one session; an ambiguous one lists the candidates.
func TestSessionPrefix(t *testing.T) {
	s := newStore(t)
	for _, n := range []string{"alpha", "alps", "beta", "ab", "abc", "gone"} {
		s.ok("new", n)
	}
	s.ok("rm", "gone")
	beta, _ := s.session("beta", "active")

	s.ok("append", "be", "to beta by a prefix")
	s.ok("append", beta.ID, "to beta by its id")
	s.ok("append", beta.ID[:len(beta.ID)-1], "to beta by a prefix of its id")
	if got := contents(s.messages("bet")); len(got) != 3 {
		t.Errorf("beta's messages: %q", got)
	}
	// The exact name wins over a longer name it starts.
	s.ok("append", "ab", "to ab")
	if got := contents(s.messages("ab")); len(got) != 1 || got[0] != "to ab" {
		t.Errorf("ab's messages: %q", got)
	}
	if got := contents(s.messages("abc")); len(got) != 0 {
		t.Errorf("abc's messages: %q", got)
	}

	s.fails(1, `"al" matches 2 sessions: alpha, alps; type more of the name or id`, "", "show", "al")
	// The ids of sessions made in one millisecond share their start:
	// the candidates are named with the id that matched.
	r := s.run("show", beta.ID[:8])
	if r.code != 1 || !strings.Contains(r.stderr, "matches 5 sessions") || !strings.Contains(r.stderr, "beta (id "+beta.ID+")") {
		t.Errorf("show of an id prefix shared by all: %v", r)
	}
	s.fails(1, `session "gon": not found`, "", "show", "gon") // the trash is not searched
	s.fails(1, `session "zzz": not found`, "", "export", "zzz")

	// The commands that change sessions resolve the same way, and say
	// which session they changed.
	if out := s.ok("archive", "alph"); !strings.HasPrefix(out, `archived "alpha"`) {
		t.Errorf("archive alph: %q", out)
	}
	if out := s.ok("unarchive", "alph"); out != "unarchived \"alpha\"\n" {
		t.Errorf("unarchive alph: %q", out)
	}
	s.fails(1, `"alp" matches 2 sessions`, "", "rename", "alp", "alpine")
	s.ok("rename", "alph", "omega")
	if _, ok := s.session("omega", "active"); !ok {
		t.Fatal("rename alph omega did not rename alpha")
	}
	// Now alp names alps alone.
	if out := s.ok("rm", "alp"); !strings.HasPrefix(out, `moved "alps" to the trash`) {
		t.Errorf("rm alp: %q", out)
	}
}
