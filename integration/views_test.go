package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// viewed is a session as the views should show it, found through the
// session's own folder: its name, id, project (by the rule, from the
// meta.json the mount shows) and last activity (the folder's mtime).
type viewed struct {
	name, id, project string
	mtime             int64 // nanoseconds
}

func viewedSessions(t *testing.T, m *mount) []viewed {
	t.Helper()
	var out []viewed
	for _, name := range ls(t, m.Dir) {
		if slices.Contains(views, name) {
			continue
		}
		meta, err := backing.DecodeMeta([]byte(cat(t, m.P(name, "meta.json"))))
		if err != nil {
			t.Fatalf("%s/meta.json: %v", name, err)
		}
		fi, err := os.Stat(m.P(name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, viewed{name, meta.ID, backing.ProjectOf(meta), fi.ModTime().UnixNano()})
	}
	// Newest first; sessions active at the same moment by name.
	slices.SortFunc(out, func(a, b viewed) int {
		if a.mtime != b.mtime {
			return map[bool]int{true: -1, false: 1}[a.mtime > b.mtime]
		}
		return strings.Compare(a.name, b.name)
	})
	return out
}

// recentNames is what ls MOUNT/recent should list for sessions newest
// first: ranks padded to the width of the count.
func recentNames(ss []viewed) []string {
	width := len(fmt.Sprint(len(ss)))
	var out []string
	for i, s := range ss {
		out = append(out, fmt.Sprintf("%0*d %s", width, i+1, s.name))
	}
	return out
}

// The views of real sessions of ../shared/data, driven by ls, cd, cat,
// readlink and find -L: recent/ newest first (the same order as ls -t
// of it), by-project/ as a tree of the projects' paths, each link leading
// to its session's folder; an append and a rename through the mount show
// in the next listing; the views refuse changes.
func TestViewsRealSessions(t *testing.T) {
	files := sharedData(t, "codex/*.jsonl", "claude-code/*.jsonl")
	m := newMount(t)
	cli(t, m.StoreDir, "import", files...)
	ss := viewedSessions(t, m)
	if len(ss) != len(files) {
		t.Fatalf("%d sessions from %d files", len(ss), len(files))
	}

	// recent/: plain ls order is newest first, and so is ls -t's.
	want := recentNames(ss)
	if got := ls(t, m.P("recent")); !slices.Equal(got, want) {
		t.Fatalf("ls recent =\n%q\nwant\n%q", got, want)
	}
	if got := lines(run(t, "ls", "-1t", m.P("recent"))); !slices.Equal(got, want) {
		t.Errorf("ls -t recent = %q, want the same order as ls: %q", got, want)
	}
	for i, entry := range want {
		link := m.P("recent", entry)
		if got := strings.TrimSpace(run(t, "readlink", link)); got != "../"+ss[i].name {
			t.Errorf("readlink recent/%s = %q", entry, got)
		}
		meta := cat(t, filepath.Join(link, "meta.json"))
		if !strings.Contains(meta, `"id": "`+ss[i].id+`"`) {
			t.Errorf("recent/%s/meta.json is not %s's:\n%s", entry, ss[i].name, meta)
		}
		// cd through the link lands in the session's folder.
		if got := sh(t, `cd "$1" && ls`, link); !strings.Contains(got, "transcript.md") {
			t.Errorf("cd recent/%s && ls: %q", entry, got)
		}
	}
	if got := lines(run(t, "find", "-L", m.P("recent"), "-mindepth", "2", "-maxdepth", "2", "-name", "meta.json")); len(got) != len(ss) {
		t.Errorf("find -L recent finds %d meta.json, want %d: %q", len(got), len(ss), got)
	}

	// by-project/: find -L reaches every session once, at its project's
	// path; cd into a project lists its sessions.
	var wantPaths []string
	projects := map[string][]string{}
	for _, s := range ss {
		wantPaths = append(wantPaths, filepath.Join(s.project, s.name, "meta.json"))
		projects[s.project] = append(projects[s.project], s.name)
	}
	slices.Sort(wantPaths)
	var gotPaths []string
	for _, p := range lines(run(t, "find", "-L", m.P("by-project"), "-name", "meta.json")) {
		gotPaths = append(gotPaths, strings.TrimPrefix(p, m.P("by-project")+"/"))
	}
	slices.Sort(gotPaths)
	if !slices.Equal(gotPaths, wantPaths) {
		t.Errorf("find -L by-project -name meta.json =\n%q\nwant\n%q", gotPaths, wantPaths)
	}
	if len(projects) < 2 || len(projects) == len(ss) {
		t.Errorf("projects %v: the data should share some and not all", projects)
	}
	for p, names := range projects {
		got := lines(sh(t, `cd "$1" && ls -1`, m.P("by-project", p)))
		for _, n := range names {
			if !slices.Contains(got, n) {
				t.Errorf("cd by-project/%s && ls = %q, lacks %s", p, got, n)
			}
		}
		depth := strings.Count(p, "/") + 2
		if got := strings.TrimSpace(run(t, "readlink", m.P("by-project", p, names[0]))); got != strings.Repeat("../", depth)+names[0] {
			t.Errorf("readlink by-project/%s/%s = %q", p, names[0], got)
		}
	}

	// An append to the oldest session makes it the newest; a rename is
	// listed under its new name.
	oldest := ss[len(ss)-1].name
	sh(t, `echo "one more question" >> "$1"`, m.P(oldest, "append"))
	if got := ls(t, m.P("recent"))[0]; got != fmt.Sprintf("%0*d %s", len(fmt.Sprint(len(ss))), 1, oldest) {
		t.Errorf("after an append to %s, recent starts with %q", oldest, got)
	}
	run(t, "mv", m.P(oldest), m.P("renamed"))
	if got := ls(t, m.P("recent")); !strings.HasSuffix(got[0], " renamed") || slices.ContainsFunc(got, func(e string) bool { return strings.HasSuffix(e, " "+oldest) }) {
		t.Errorf("after a rename, ls recent = %q", got)
	}
	if got := cat(t, m.P("recent", ls(t, m.P("recent"))[0], "transcript.md")); !strings.Contains(got, "one more question") {
		t.Errorf("the newest link's transcript lacks the append")
	}

	// The views take no change.
	first := m.P("recent", ls(t, m.P("recent"))[0])
	wantErrno(t, "EPERM", "rm of a link in recent", `os.unlink(A[0])`, first)
	wantErrno(t, "EPERM", "mkdir in by-project", `os.mkdir(A[0])`, m.P("by-project", "new"))
	wantErrno(t, "EPERM", "ln -s in recent", `os.symlink("../x", A[0])`, m.P("recent", "new"))
	wantErrno(t, "EEXIST", "mkdir recent", `os.mkdir(A[0])`, m.P("recent"))
	wantErrno(t, "EBUSY", "rmdir by-project", `os.rmdir(A[0])`, m.P("by-project"))
}

// by-tag/ shows tags set through meta.json at once, nested at '/'.
func TestViewsByTag(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "alpha", "Capitals", conversation...)
	newSession(t, m.Store, "beta", "Other")
	if got := ls(t, m.P("by-tag")); len(got) != 0 {
		t.Fatalf("ls by-tag with no tags = %q", got)
	}
	meta := storeMeta(t, m, "alpha")
	meta.Tags = []string{"geo", "geo/europe"}
	doc, _ := json.Marshal(meta)
	if err := os.WriteFile(m.P("alpha", "meta.json"), doc, 0); err != nil {
		t.Fatal(err)
	}
	if got := ls(t, m.P("by-tag")); !slices.Equal(got, []string{"geo"}) {
		t.Errorf("ls by-tag = %q", got)
	}
	if got := ls(t, m.P("by-tag", "geo")); !slices.Equal(got, []string{"alpha", "europe"}) {
		t.Errorf("ls by-tag/geo = %q", got)
	}
	if got := cat(t, m.P("by-tag", "geo", "europe", "alpha", "transcript.md")); !strings.Contains(got, "xylophone") {
		t.Errorf("by-tag/geo/europe/alpha/transcript.md: %q", trunc(got))
	}
}
