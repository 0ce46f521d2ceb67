package backing

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The project rule: which project a session belongs to, for by-project/,
// --project and the usage report. It is written here once, as a pure
// function of the meta, so that every engine's index, the mount and the
// command line group sessions the same way, and so that the answer does
// not depend on the machine that asks (the cwd may not exist here).
//
//  1. The meta's "project", when the user set one.
//  2. Else the git remote of the folder the session ran in, as owner/repo
//     (the last two components of its path, lowercased): the same
//     repository checked out in two places, or a folder moved, is one
//     project. Codex records the remote in "source"; for other sessions
//     sessfs records it under RemoteKey when it can read it from the
//     cwd's .git/config as the session is made or imported.
//  3. Else the cwd's last two path components (~/work/app → work/app):
//     one component ("app", "src", "backend") would lump unrelated
//     folders together; the whole path would split one project between
//     machines (/home/alice, /Users/alice) and break when a folder
//     above it moves. Two components name the folder and where it lives,
//     and have the shape of owner/repo.
//  4. Else NoProject.
//
// A project is a path of folder names (GroupPath): by-project/ shows
// owner/repo as by-project/owner/repo/.

// NoProject is the project of a session that says nothing of where it
// ran: no project, no remote, no cwd.
const NoProject = "(none)"

// RemoteKey is the meta.json field where sessfs records the git remote
// of a session's cwd (a URL, credentials left out), read when the session
// was made (sessfs new --cwd) or imported. Codex sessions carry their own
// in "source"; the field is never updated afterwards, as the session's
// cwd is not either.
const RemoteKey = "git_remote"

// ProjectOf names the project a session belongs to, by the rule above;
// NoProject when the session says nothing of where it ran.
func ProjectOf(m Meta) string {
	if p := GroupPath(m.Project); p != "" {
		return p
	}
	if p := RepoOf(RemoteOf(m)); p != "" {
		return p
	}
	if p := cwdProject(m.Cwd); p != "" {
		return p
	}
	return NoProject
}

// AgentOf names the agent that wrote a session: the format it was imported
// from (claude-code, codex, gemini), or "sessfs" for one made here.
func AgentOf(m Meta) string {
	if f := sourceOf(m).Format; f != "" {
		return f
	}
	return "sessfs"
}

// RemoteOf is the git remote a session's meta records: Codex's own
// ("source": {"git": {"repository_url"}}), else the one sessfs recorded
// (RemoteKey); "" if neither.
func RemoteOf(m Meta) string {
	if u := sourceOf(m).Git.RepositoryURL; u != "" {
		return u
	}
	var u string
	if raw := m.Extra[RemoteKey]; raw != nil && json.Unmarshal(raw, &u) == nil {
		return u
	}
	return ""
}

// source is what the rules here read of meta.json's "source", the record
// of an imported session's origin (backing/importer owns the rest).
type source struct {
	Format string `json:"format"`
	Git    struct {
		RepositoryURL string `json:"repository_url"`
	} `json:"git"`
}

// sourceOf reads m's "source" as far as it has the expected shape: a
// field of another type is left empty, the others are still read.
func sourceOf(m Meta) source {
	var s source
	if raw := m.Extra["source"]; raw != nil {
		_ = json.Unmarshal(raw, &s) // best effort: see above
	}
	return s
}

// RepoOf names the project of a git remote: the last two components of
// its path, without ".git", lowercased (the hosts people use compare
// owners and repositories without case), so that
// https://github.com/Owner/Repo.git, git@github.com:owner/repo and
// ssh://git@github.com:22/owner/repo/ are all owner/repo. A path of one
// component is prefixed by the host (https://host/repo → host/repo).
// "" if the remote has no path.
func RepoOf(remote string) string {
	s := strings.TrimSpace(remote)
	var host, path string
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		host, path, _ = strings.Cut(rest, "/")
		if strings.EqualFold(s[:i], "file") {
			host = ""
		}
	} else if i := strings.IndexByte(s, ':'); i > 1 && !strings.ContainsAny(s[:i], `/\`) {
		// scp-like [user@]host:path; one letter before ':' is a
		// Windows drive (C:\repo), which git reads as a path too.
		host, path = s[:i], s[i+1:]
	} else {
		path = s
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:] // user and password
	}
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h // port
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	parts := components(strings.TrimSuffix(strings.TrimRight(path, `/\`), ".git"), `/\`)
	switch {
	case len(parts) == 0:
		return ""
	case len(parts) == 1 && host != "":
		parts = []string{host, parts[0]}
	case len(parts) > 2:
		parts = parts[len(parts)-2:]
	}
	return GroupPath(strings.ToLower(strings.Join(parts, "/")))
}

// cwdProject is the project of a cwd without a known remote: its last two
// path components (see the rule above); "" for none ("/", "").
func cwdProject(cwd string) string {
	parts := components(cwd, `/\`) // a Windows agent's cwd too
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return GroupPath(strings.Join(parts, "/"))
}

// components splits s at any of seps, leaving out empty, "." and ".."
// components.
func components(s, seps string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
		if c = strings.TrimSpace(c); c != "" && c != "." && c != ".." {
			out = append(out, c)
		}
	}
	return out
}

// GroupPath makes a project or a tag a path of folder names, for
// by-project/ and by-tag/: '/'-separated components, none empty, "." or
// "..", each valid UTF-8 without control characters and at most
// MaxNameLen bytes, spaces around each trimmed. "" if nothing is left.
// "owner/repo" stays as it is, so it shows as two nested folders.
func GroupPath(s string) string {
	if isGroupPath(s) { // most are: a view asks for every session's at each listing
		return s
	}
	return cleanGroupPath(s)
}

func cleanGroupPath(s string) string {
	parts := components(s, "/")
	for i, c := range parts {
		c = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return '_'
			}
			return r
		}, strings.ToValidUTF8(c, "\uFFFD"))
		if len(c) > MaxNameLen { // cut at a rune's start
			n := MaxNameLen
			for !utf8.RuneStart(c[n]) {
				n--
			}
			c = c[:n]
		}
		parts[i] = c
	}
	return strings.Join(parts, "/")
}

// isGroupPath reports whether GroupPath leaves s as it is: printable
// ASCII components, none empty, "." or "..", none with a space at an end
// or longer than MaxNameLen.
func isGroupPath(s string) bool {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			if s[i] < 0x20 || s[i] >= 0x7f {
				return false
			}
			continue
		}
		c := s[start:i]
		if c == "" || c == "." || c == ".." || len(c) > MaxNameLen || c[0] == ' ' || c[len(c)-1] == ' ' {
			return false
		}
		start = i + 1
	}
	return true
}

// MatchProject reports whether project (as ProjectOf names it) is one a
// user means by p (--project): the same, or p is its first or last
// components (owner, repo, or owner/repo of owner/repo), without regard
// to case.
func MatchProject(project, p string) bool {
	p = GroupPath(p)
	if p == "" {
		return false
	}
	project, p = strings.ToLower(project), strings.ToLower(p)
	return project == p || strings.HasPrefix(project, p+"/") || strings.HasSuffix(project, "/"+p)
}
