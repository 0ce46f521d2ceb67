package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// GitRemote is the URL of the git remote of the repository holding dir,
// as git would find it (dir or the nearest folder above it with a .git,
// a worktree's or submodule's .git file followed to its repository), for
// backing.ProjectOf: the "origin" remote, else the first one configured.
// Credentials in the URL are left out, as meta.json is no place for a
// token. It reads .git/config itself (no git binary needed) and answers
// "" when there is no repository, no remote, or anything cannot be read:
// a project then falls back to the cwd.
func GitRemote(dir string) string {
	config := gitConfig(dir)
	if config == "" {
		return ""
	}
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	return stripCredentials(remoteURL(io.LimitReader(f, 1<<20)))
}

// gitConfig finds the config file of the repository holding dir.
func gitConfig(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		git := filepath.Join(d, ".git")
		if fi, err := os.Stat(git); err == nil {
			if fi.IsDir() {
				return filepath.Join(git, "config")
			}
			return linkedConfig(git)
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// linkedConfig follows a .git file ("gitdir: PATH", a worktree or a
// submodule) to its git folder, and a worktree's to the repository's own
// (its "commondir"), whose config holds the remotes.
func linkedConfig(gitFile string) string {
	data, err := os.ReadFile(gitFile)
	if err != nil {
		return ""
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gitDir := strings.TrimSpace(rest)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(filepath.Dir(gitFile), gitDir)
	}
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		gitDir = c
	}
	return filepath.Join(gitDir, "config")
}

// remoteURL reads a git config file: the url of [remote "origin"], else
// of the first remote with one. Only what that needs of git's config
// syntax is read: sections, "key = value" lines, comments and quotes.
func remoteURL(r io.Reader) string {
	var first, origin, section string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section = strings.TrimSpace(line[1:end])
			line = strings.TrimSpace(line[end+1:]) // [remote "x"] url = … on one line
			if line == "" {
				continue
			}
		}
		name, ok := remoteName(section)
		key, value, found := strings.Cut(line, "=")
		if !ok || !found || !strings.EqualFold(strings.TrimSpace(key), "url") {
			continue
		}
		value = configValue(value)
		if first == "" {
			first = value
		}
		if name == "origin" && origin == "" {
			origin = value
		}
	}
	if origin != "" {
		return origin
	}
	return first
}

// remoteName is the name of a [remote "name"] section.
func remoteName(section string) (string, bool) {
	kind, rest, ok := strings.Cut(section, " ")
	if !ok || !strings.EqualFold(kind, "remote") {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(rest), `"`), true
}

// configValue is a value as written after '=': a comment after it cut,
// quotes and the escapes git writes in URLs undone.
func configValue(v string) string {
	var b bytes.Buffer
	quoted := false
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(v[i])
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// stripCredentials leaves a password out of a URL, and the user of an
// http(s) one, where a token often takes its place
// (https://x-access-token:…@host/…, https://ghp_…@host/…). An ssh user
// (ssh://git@host/…, git@host:path) is no secret and is kept.
func stripCredentials(remote string) string {
	if !strings.Contains(remote, "://") {
		return remote
	}
	u, err := url.Parse(remote)
	if err != nil {
		return "" // unreadable: better no remote than a token in meta.json
	}
	if u.User == nil {
		return remote
	}
	if _, pass := u.User.Password(); pass || strings.HasPrefix(strings.ToLower(u.Scheme), "http") {
		u.User = nil
	}
	return u.String()
}

// RecordRemote records in m, under backing.RemoteKey, the git remote of
// m's cwd as of now (GitRemote), unless m records one already (a Codex
// session's own) or there is none: what backing.ProjectOf names the
// project after, wherever the folder is later moved or checked out.
func RecordRemote(m *backing.Meta) {
	if m.Cwd == "" || backing.RemoteOf(*m) != "" {
		return
	}
	r := GitRemote(m.Cwd)
	if r == "" {
		return
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return
	}
	m.PutExtra(backing.RemoteKey, raw)
}
