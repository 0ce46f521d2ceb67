package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// cliNames is the names `sessfs ls --json [--all]` reports, by state.
func cliNames(t *testing.T, storeDir string, all bool) map[string]string {
	t.Helper()
	args := []string{"--json"}
	if all {
		args = append(args, "--all")
	}
	var list []struct {
		Name, State, ID string
	}
	if err := json.Unmarshal([]byte(cli(t, storeDir, "ls", args...)), &list); err != nil {
		t.Fatalf("sessfs ls --json: %v", err)
	}
	out := map[string]string{}
	for _, s := range list {
		out[s.Name] = s.State
	}
	return out
}

// `mkdir MOUNT/new` creates a session the CLI sees, with the files of a
// session; `mv` renames it, keeping its messages.
func TestSessionMkdirAndRename(t *testing.T) {
	m := newMount(t)
	run(t, "mkdir", m.P("new"))
	if got := cliNames(t, m.StoreDir, false); got["new"] != "active" {
		t.Fatalf("sessfs ls after mkdir: %v, want new active", got)
	}
	if got := ls(t, m.P("new")); !slices.Equal(got, sessionFiles) {
		t.Errorf("ls of a new session = %q", got)
	}
	if got := cat(t, m.P("new", "transcript.md")); !strings.HasPrefix(got, "# new\n") || transcriptBody(t, got) != "" {
		t.Errorf("a new session's transcript = %q, want its header alone", got)
	}
	sh(t, `echo first words >> "$1/append"`, m.P("new"))

	ino := run(t, "stat", "-c", "%i", m.P("new"))
	run(t, "mv", m.P("new"), m.P("renamed"))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf("renamed")) {
		t.Errorf("ls after mv = %q", got)
	}
	if got := cat(t, m.P("renamed", "transcript.md")); !strings.Contains(got, "first words") {
		t.Errorf("the renamed session lost its message: %q", got)
	}
	if got := run(t, "stat", "-c", "%i", m.P("renamed")); got != ino {
		t.Errorf("st_ino changed with the name: %s -> %s (it derives from the id)", strings.TrimSpace(ino), strings.TrimSpace(got))
	}
	if got := cliNames(t, m.StoreDir, true); got["renamed"] != "active" || got["new"] != "" {
		t.Errorf("sessfs ls --all after mv: %v", got)
	}
	var meta map[string]any
	json.Unmarshal([]byte(cat(t, m.P("renamed", "meta.json"))), &meta)
	if meta["name"] != "renamed" {
		t.Errorf("meta.json name = %v after the rename", meta["name"])
	}
}

// mv never replaces an existing session: EEXIST, and both stay whole.
func TestSessionRenameOntoExisting(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "a", "", conversation[:2]...)
	newSession(t, m.Store, "b", "", conversation[2:]...)
	a, b := cat(t, m.P("a", "transcript.md")), cat(t, m.P("b", "transcript.md"))
	wantErrno(t, "EEXIST", "rename a onto b", `os.rename(A[0], A[1])`, m.P("a"), m.P("b"))
	if r := runCmd(t, "", "mv", "-T", m.P("a"), m.P("b")); r.code == 0 {
		t.Errorf("mv -T a b succeeded: %v", r)
	}
	// Onto a view's name too.
	wantErrno(t, "EEXIST", "rename a onto trash", `os.rename(A[0], A[1])`, m.P("a"), m.P("trash"))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf("a", "b")) {
		t.Errorf("ls = %q", got)
	}
	if cat(t, m.P("a", "transcript.md")) != a || cat(t, m.P("b", "transcript.md")) != b {
		t.Errorf("a refused rename changed a session")
	}
}

// rmdir moves a session to the trash (it lists files, yet rmdir works);
// trash/ shows it as <name>~<id>, sessfs trash lists it, and mv out of
// trash/ restores it with its messages.
func TestSessionTrashAndRestore(t *testing.T) {
	m := newMount(t)
	s := newSession(t, m.Store, "b", "To be trashed", conversation...)
	md := cat(t, m.P("b", "transcript.md"))
	run(t, "rmdir", m.P("b"))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf()) {
		t.Errorf("ls after rmdir = %q", got)
	}
	entry := "b~" + s.ID()
	if got := ls(t, m.P("trash")); !slices.Equal(got, []string{entry}) {
		t.Fatalf("ls trash = %q, want [%s]", got, entry)
	}
	if got := cat(t, m.P("trash", entry, "transcript.md")); got != md {
		t.Errorf("the trashed session's transcript differs")
	}
	if out := cli(t, m.StoreDir, "trash"); !strings.Contains(out, s.ID()) || !strings.Contains(out, "b") {
		t.Errorf("sessfs trash does not list it:\n%s", out)
	}
	wantErrno(t, "ENOENT", "stat the trashed name", `os.stat(A[0])`, m.P("b"))

	run(t, "mv", m.P("trash", entry), m.P("back"))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf("back")) {
		t.Errorf("ls after restore = %q", got)
	}
	if got := ls(t, m.P("trash")); len(got) != 0 {
		t.Errorf("ls trash after restore = %q, want empty", got)
	}
	if got := cat(t, m.P("back", "transcript.md")); got != md {
		t.Errorf("the restored session's transcript differs:\n got %q\nwant %q", got, md)
	}
	if n := len(storeMessages(t, m.StoreDir, "back", "")); n != len(conversation) {
		t.Errorf("store: back has %d messages, want %d", n, len(conversation))
	}
}

// mv into archive/ archives a session (gone from ls MOUNT, listed in
// archive/) and mv back brings it back.
func TestSessionArchive(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "", conversation...)
	md := cat(t, m.P("s", "transcript.md"))
	run(t, "mv", m.P("s"), m.P("archive", "s"))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf()) {
		t.Errorf("ls after archiving = %q", got)
	}
	if got := ls(t, m.P("archive")); !slices.Equal(got, []string{"s"}) {
		t.Errorf("ls archive = %q, want [s]", got)
	}
	if got := cat(t, m.P("archive", "s", "transcript.md")); got != md {
		t.Errorf("the archived transcript differs")
	}
	if got := cliNames(t, m.StoreDir, true); got["s"] != "archived" {
		t.Errorf("sessfs ls --all: %v, want s archived", got)
	}
	run(t, "mv", m.P("archive", "s"), m.P("s"))
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf("s")) {
		t.Errorf("ls after unarchiving = %q", got)
	}
	if got := ls(t, m.P("archive")); len(got) != 0 {
		t.Errorf("ls archive = %q, want empty", got)
	}
	// mv s archive/ (the folder as the target), as the README shows.
	run(t, "mv", m.P("s"), m.P("archive")+"/")
	if got := ls(t, m.P("archive")); !slices.Equal(got, []string{"s"}) {
		t.Errorf("mv s archive/: ls archive = %q, want [s]", got)
	}
	run(t, "mv", m.P("archive", "s"), m.Dir+"/")
	if got := cat(t, m.P("s", "transcript.md")); got != md {
		t.Errorf("the transcript changed through archiving")
	}
}

// rm -r tries every file, is refused each one (generated files cannot be
// unlinked), and deletes nothing: the session is intact.
func TestSessionRmRecursive(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "", conversation...)
	run(t, "mkdir", m.P("s", "branches", "x"))
	md := cat(t, m.P("s", "transcript.md"))
	meta := cat(t, m.P("s", "meta.json"))
	r := runCmd(t, "", "rm", "-r", m.P("s"))
	if r.code == 0 {
		t.Errorf("rm -r MOUNT/s succeeded: %v", r)
	}
	for _, f := range []string{"meta.json", "transcript.md", "append", "branches/main/transcript.md", "branches/x/info.json"} {
		if !strings.Contains(r.stderr, "cannot remove '"+m.P("s", f)+"'") {
			t.Errorf("rm -r did not try %s: %v", f, r)
		}
	}
	if got := ls(t, m.Dir); !slices.Equal(got, rootOf("s")) {
		t.Errorf("ls after rm -r = %q", got)
	}
	if got := ls(t, m.P("s", "branches")); !slices.Equal(got, []string{"main", "x"}) {
		t.Errorf("ls branches after rm -r = %q", got)
	}
	if cat(t, m.P("s", "transcript.md")) != md || cat(t, m.P("s", "meta.json")) != meta {
		t.Errorf("rm -r changed the session")
	}
	if got := ls(t, m.P("trash")); len(got) != 0 {
		t.Errorf("rm -r put something in the trash: %q", got)
	}
	if n := len(storeMessages(t, m.StoreDir, "s", "")); n != len(conversation) {
		t.Errorf("store: %d messages after rm -r, want %d", n, len(conversation))
	}
}
