package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

const twoRemotes = `[core]
	bare = false
# a comment
[remote "upstream"]
	url = https://github.com/up/stream.git
	fetch = +refs/heads/*:refs/remotes/upstream/*
[remote "origin"]
	URL = "git@github.com:Owner/Repo.git" ; the one
[branch "main"]
	remote = origin
`

func TestGitRemote(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	writeFile(t, filepath.Join(repo, ".git", "config"), twoRemotes)
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	// A worktree: its .git file leads to .git/worktrees/w, whose
	// commondir leads back to the repository's config.
	wt := filepath.Join(root, "wt")
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(repo, ".git", "worktrees", "w")+"\n")
	writeFile(t, filepath.Join(repo, ".git", "worktrees", "w", "commondir"), "../..\n")

	// A submodule: a relative gitdir with a config of its own.
	mod := filepath.Join(repo, "mod")
	writeFile(t, filepath.Join(mod, ".git"), "gitdir: ../.git/modules/mod\n")
	writeFile(t, filepath.Join(repo, ".git", "modules", "mod", "config"), "[remote \"origin\"]\n\turl = https://github.com/o/mod\n")

	noOrigin := filepath.Join(root, "no-origin")
	writeFile(t, filepath.Join(noOrigin, ".git", "config"), "[remote \"fork\"]\nurl = /srv/git/fork.git\n")

	secret := filepath.Join(root, "secret")
	writeFile(t, filepath.Join(secret, ".git", "config"), "[remote \"origin\"]\nurl = https://x-access-token:ghp_abc@github.com/o/r.git\n")
	token := filepath.Join(root, "token")
	writeFile(t, filepath.Join(token, ".git", "config"), "[remote \"origin\"]\nurl = https://ghp_abc@github.com/o/r.git\n")
	sshUser := filepath.Join(root, "ssh")
	writeFile(t, filepath.Join(sshUser, ".git", "config"), "[remote \"origin\"]\nurl = ssh://git@github.com/o/r.git\n")

	noRemote := filepath.Join(root, "no-remote")
	writeFile(t, filepath.Join(noRemote, ".git", "config"), "[core]\n\tbare = false\n")
	plain := filepath.Join(root, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}

	for dir, want := range map[string]string{
		repo:                             "git@github.com:Owner/Repo.git",
		sub:                              "git@github.com:Owner/Repo.git",
		wt:                               "git@github.com:Owner/Repo.git",
		mod:                              "https://github.com/o/mod",
		noOrigin:                         "/srv/git/fork.git",
		secret:                           "https://github.com/o/r.git",
		token:                            "https://github.com/o/r.git",
		sshUser:                          "ssh://git@github.com/o/r.git",
		noRemote:                         "",
		plain:                            "",
		filepath.Join(root, "gone", "x"): "",
		"relative/dir":                   "",
		"":                               "",
	} {
		if got := GitRemote(dir); got != want {
			t.Errorf("GitRemote(%s) = %q, want %q", strings.TrimPrefix(dir, root), got, want)
		}
	}
}

// An imported Claude Code session records the remote of its cwd, so its
// project is owner/repo; a Codex session keeps the remote it recorded.
func TestImportRecordsRemote(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "checkout")
	writeFile(t, filepath.Join(repo, ".git", "config"), "[remote \"origin\"]\n\turl = https://github.com/owner/repo.git\n")
	line := claudeLine("u1", "", "user", "Fix the parser")
	line = strings.Replace(line, `{"type"`, `{"cwd":`+quoteJSON(repo)+`,"type"`, 1)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, line+"\n")
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	r := runOne(t, st, path)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	s, err := st.Session(r.Name)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := s.Meta()
	if m.Cwd != repo || backing.RemoteOf(m) != "https://github.com/owner/repo.git" || backing.ProjectOf(m) != "owner/repo" {
		t.Errorf("imported meta: cwd %q, remote %q, project %q", m.Cwd, backing.RemoteOf(m), backing.ProjectOf(m))
	}

	codex := backing.Meta{Cwd: repo, Extra: map[string]json.RawMessage{"source": json.RawMessage(`{"git":{"repository_url":"https://h/c/x"}}`)}}
	RecordRemote(&codex)
	if _, ok := codex.Extra[backing.RemoteKey]; ok || backing.ProjectOf(codex) != "c/x" {
		t.Errorf("a session with its own remote got another: %v", codex.Extra)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
