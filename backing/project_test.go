package backing

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRepoOf(t *testing.T) {
	for remote, want := range map[string]string{
		"https://github.com/owner/repo.git":          "owner/repo",
		"https://github.com/Owner/Repo":              "owner/repo",
		"https://github.com/owner/repo.git/":         "owner/repo",
		"http://github.com/owner/repo/":              "owner/repo",
		"git@github.com:owner/repo.git":              "owner/repo",
		"git@github.com:owner/repo":                  "owner/repo",
		"github.com:owner/repo.git":                  "owner/repo",
		"ssh://git@github.com/owner/repo.git":        "owner/repo",
		"ssh://git@github.com:2222/owner/repo.git":   "owner/repo",
		"git://example.org/owner/repo":               "owner/repo",
		"https://user:s3cret@github.com/owner/repo":  "owner/repo",
		"https://gitlab.com/group/sub/repo.git":      "sub/repo",
		"https://host.example/repo.git":              "host.example/repo",
		"https://host.example:8443/repo":             "host.example/repo",
		"file:///srv/git/owner/repo.git":             "owner/repo",
		"/srv/git/repo.git":                          "git/repo",
		`C:\src\owner\repo`:                          "owner/repo",
		"https://github.com/owner/repo.git?ref=main": "owner/repo",
		"redacted://url/d18f1190d0":                  "url/d18f1190d0",
		"  https://github.com/owner/repo  ":          "owner/repo",
		"":                                           "",
		"https://github.com/":                        "",
		"https://github.com":                         "",
	} {
		if got := RepoOf(remote); got != want {
			t.Errorf("RepoOf(%q) = %q, want %q", remote, got, want)
		}
	}
}

func metaWith(t *testing.T, m Meta, extra map[string]any) Meta {
	t.Helper()
	for k, v := range extra {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra[k] = raw
	}
	return m
}

func TestProjectOf(t *testing.T) {
	codex := func(url string) map[string]any {
		return map[string]any{"source": map[string]any{"format": "codex", "git": map[string]any{"repository_url": url}}}
	}
	for _, c := range []struct {
		what  string
		m     Meta
		extra map[string]any
		want  string
	}{
		{"set by the user", Meta{Project: "mine", Cwd: "/a/b/c"}, codex("https://github.com/o/r"), "mine"},
		{"set by the user, cleaned", Meta{Project: "/a//b/../c/"}, nil, "a/b/c"},
		{"codex's remote", Meta{Cwd: "/home/x/r"}, codex("git@github.com:Owner/R.git"), "owner/r"},
		{"recorded remote", Meta{Cwd: "/home/x/r"}, map[string]any{RemoteKey: "https://github.com/o/r.git"}, "o/r"},
		{"codex's remote first", Meta{}, map[string]any{
			"source": map[string]any{"git": map[string]any{"repository_url": "https://h/a/b"}}, RemoteKey: "https://h/c/d"}, "a/b"},
		{"cwd", Meta{Cwd: "/home/alice/work/app"}, nil, "work/app"},
		{"cwd, trailing slash", Meta{Cwd: "/home/alice/work/app/"}, nil, "work/app"},
		{"cwd of one component", Meta{Cwd: "/tmp"}, nil, "tmp"},
		{"cwd of Windows", Meta{Cwd: `C:\Users\bob\proj`}, nil, "bob/proj"},
		{"cwd /", Meta{Cwd: "/"}, nil, NoProject},
		{"nothing", Meta{}, nil, NoProject},
		{"a remote without a path falls to the cwd", Meta{Cwd: "/x/y/z"}, map[string]any{RemoteKey: "https://github.com/"}, "y/z"},
		{"git of another shape is ignored", Meta{Cwd: "/x/y"}, map[string]any{"source": map[string]any{"format": "codex", "git": "weird"}}, "x/y"},
		{"source not an object", Meta{Cwd: "/x/y"}, map[string]any{"source": 3}, "x/y"},
	} {
		if got := ProjectOf(metaWith(t, c.m, c.extra)); got != c.want {
			t.Errorf("%s: ProjectOf = %q, want %q", c.what, got, c.want)
		}
	}
}

// The same repository checked out in two places, or a folder that
// moved, is one project when the remote is known.
func TestProjectOfSameRemote(t *testing.T) {
	a := metaWith(t, Meta{Cwd: "/home/alice/src/sessfs"}, map[string]any{RemoteKey: "git@github.com:sessfs/sessfs.git"})
	b := metaWith(t, Meta{Cwd: "/tmp/checkout-2"}, map[string]any{RemoteKey: "https://github.com/sessfs/sessfs"})
	if pa, pb := ProjectOf(a), ProjectOf(b); pa != pb || pa != "sessfs/sessfs" {
		t.Errorf("two checkouts of one remote: %q and %q", pa, pb)
	}
}

func TestAgentOf(t *testing.T) {
	for _, c := range []struct {
		extra map[string]any
		want  string
	}{
		{nil, "sessfs"},
		{map[string]any{"source": map[string]any{"format": "claude-code"}}, "claude-code"},
		{map[string]any{"source": map[string]any{"format": "codex", "git": 1}}, "codex"},
		{map[string]any{"source": "not an object"}, "sessfs"},
	} {
		if got := AgentOf(metaWith(t, Meta{}, c.extra)); got != c.want {
			t.Errorf("AgentOf(%v) = %q, want %q", c.extra, got, c.want)
		}
	}
}

func TestGroupPath(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes
	for in, want := range map[string]string{
		"owner/repo":  "owner/repo",
		" a / b ":     "a/b",
		"//a///b//":   "a/b",
		"./a/../b":    "a/b",
		"..":          "",
		"":            "",
		"tab\there":   "tab_here",
		"bad\xffutf8": "bad\uFFFDutf8",
		long:          strings.Repeat("é", 127),         // 254 bytes: no half rune
		"x/a" + long:  "x/a" + strings.Repeat("é", 127), // 255 bytes
	} {
		got := GroupPath(in)
		if got != want {
			t.Errorf("GroupPath(%q) = %q, want %q", in, got, want)
		}
		for _, c := range strings.Split(got, "/") {
			if got != "" && ValidName(c) != nil && !strings.HasPrefix(c, ".") {
				t.Errorf("GroupPath(%q): component %q is no valid name: %v", in, c, ValidName(c))
			}
		}
	}
}

// TestGroupPathAsIs: what the quick check leaves as it is, the full rule
// leaves as it is too, over every path of up to four bytes from an
// alphabet of the cases that matter.
func TestGroupPathAsIs(t *testing.T) {
	alphabet := []string{"a", "/", ".", " ", "\t", "\x7f", "\xc3", "\xa9", "~"}
	var walk func(s string, n int)
	walk = func(s string, n int) {
		if isGroupPath(s) && cleanGroupPath(s) != s {
			t.Errorf("isGroupPath(%q), but GroupPath makes it %q", s, cleanGroupPath(s))
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			walk(s+c, n-1)
		}
	}
	walk("", 4)
	long := strings.Repeat("a", MaxNameLen+1)
	if isGroupPath(long) || isGroupPath("x/"+long) {
		t.Errorf("isGroupPath of a component over MaxNameLen")
	}
}

func TestMatchProject(t *testing.T) {
	for _, c := range []struct {
		project, p string
		want       bool
	}{
		{"owner/repo", "owner/repo", true},
		{"owner/repo", "Owner/Repo", true},
		{"owner/repo", "repo", true},
		{"owner/repo", "owner", true},
		{"owner/repo", "own", false},
		{"owner/repo", "epo", false},
		{"owner/repo", "", false},
		{NoProject, NoProject, true},
		{"owner/repo", "/owner/repo/", true},
	} {
		if got := MatchProject(c.project, c.p); got != c.want {
			t.Errorf("MatchProject(%q, %q) = %v, want %v", c.project, c.p, got, c.want)
		}
	}
}
