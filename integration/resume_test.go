package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing/importer"
)

// The documented route from the shell: messages written to the mount's
// append file, `mkdir turns/1/fork/x`, then `sessfs resume --branch x`
// writes a session of the agent holding turn 1 and nothing after it,
// where the agent looks for it (the real agents continuing such a file
// are tested in integration/agents).
func TestResumeForkedTurn(t *testing.T) {
	m := newMount(t)
	cwd := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("CODEX_HOME", t.TempDir())
	cli(t, m.StoreDir, "new", "--cwd", cwd, "s")
	dir := m.P("s")
	if err := os.WriteFile(dir+"/append", []byte(strings.Join(conversation, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "mkdir", dir+"/turns/1/fork/x")
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			out := lines(cli(t, m.StoreDir, "resume", "--print", "--agent", agent, "--branch", "x", "s"))
			if len(out) != 2 {
				t.Fatalf("resume --print: want the id and the command, got %q", out)
			}
			id := out[0]
			files, _ := filepath.Glob(filepath.Join(os.Getenv("CLAUDE_CONFIG_DIR"), "projects", "*", id+".jsonl"))
			if agent == "codex" {
				files, _ = filepath.Glob(filepath.Join(os.Getenv("CODEX_HOME"), "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
			}
			if len(files) != 1 {
				t.Fatalf("no file of session %s where %s looks for it", id, agent)
			}
			s, err := importer.DecodeFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if string(s.Format) != agent || s.SourceID != id || s.Cwd != cwd {
				t.Errorf("%s reads as %s session %s in %s, want %s %s in %s", files[0], s.Format, s.SourceID, s.Cwd, agent, id, cwd)
			}
			data, _ := os.ReadFile(files[0])
			if !strings.Contains(string(data), "capital of France") || !strings.Contains(string(data), "xylophone") {
				t.Errorf("%s lacks turn 1:\n%s", files[0], data)
			}
			if strings.Contains(string(data), "Italy") || strings.Contains(string(data), "Rome") {
				t.Errorf("%s holds turn 2, which branch x ends before:\n%s", files[0], data)
			}
		})
	}
}
