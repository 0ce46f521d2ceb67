package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/mounttest"
)

// `sessfs mount --source claude-code FOLDER` shows an agent's own folder
// through the same tree, read-only, without touching a store of the
// user's, and follows the agent as it appends to a session file.
func TestMountSource(t *testing.T) {
	requireFUSE(t)
	needCLI(t)
	data := sharedData(t, "claude-code/*.jsonl")
	agent := filepath.Join(t.TempDir(), "projects")
	proj := filepath.Join(agent, "-home-me-proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	var session string // the file the agent will go on writing
	for _, f := range data {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(proj, filepath.Base(f))
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, "hello-world-script.jsonl") {
			session = dst
		}
	}
	cache := filepath.Join(t.TempDir(), "cache")
	mnt := mountDir(t)
	cli(t, cache, "mount", "--daemon", "--source", "claude-code", agent, mnt)
	t.Cleanup(func() {
		if mounttest.IsMountPoint(mnt) {
			runCmd(t, "", sessfsBin, "umount", mnt)
		}
	})
	names := ls(t, mnt)
	if len(names) != len(data)+len(views) {
		t.Fatalf("ls of the agent's folder = %q, want its %d sessions", names, len(data))
	}
	name := "expressive-chasing-pie" // the session's slug, as import names it
	transcript := filepath.Join(mnt, name, "transcript.md")
	if got, want := cat(t, transcript), cli(t, cache, "show", name); got != want || !strings.Contains(got, "Hello world") {
		t.Fatalf("transcript.md through the source mount:\n%s\nwant:\n%s", got, want)
	}

	f, err := os.OpenFile(session, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"user","uuid":"new-1","parentUuid":null,"sessionId":"x","timestamp":"2026-01-21T07:00:00Z","message":{"role":"user","content":"the agent goes on writing"}}` + "\n")
	f.Close()
	eventually(t, 5*time.Second, "the mount following the agent's append", func() (bool, string) {
		got := cat(t, transcript)
		return strings.Contains(got, "the agent goes on writing"), got[max(0, len(got)-200):]
	})

	if r := shResult(t, `echo hi >> "$1"`, filepath.Join(mnt, name, "append")); r.code == 0 || !strings.Contains(r.stderr, "Read-only") {
		t.Errorf("writing to a source mount: %v, want EROFS", r)
	}
	if orig, _ := os.ReadFile(session); cli(t, cache, "export", "--format", "original", name) != string(orig) {
		t.Errorf("the mirror's original differs from the agent's file")
	}
	run(t, sessfsBin, "umount", mnt)
}
