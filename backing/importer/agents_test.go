package importer

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAgentFolders: the agents' folders that exist, where their
// environment variables say, else under the home folder.
func TestAgentFolders(t *testing.T) {
	home := t.TempDir()
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{home}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := func(env map[string]string) []string {
		var out []string
		for _, f := range AgentFolders(func(k string) string { return env[k] }, home) {
			out = append(out, string(f.Format)+" "+f.Path)
		}
		return out
	}
	if got := paths(nil); len(got) != 0 {
		t.Errorf("no agent folder: %q", got)
	}
	claude := mk(".claude", "projects")
	codex := mk(".codex", "sessions")
	if got, want := paths(nil), []string{"claude-code " + claude, "codex " + codex}; !slices.Equal(got, want) {
		t.Errorf("defaults: %q, want %q", got, want)
	}
	gemini := mk(".gemini", "tmp")
	if got, want := paths(nil), []string{"claude-code " + claude, "codex " + codex, "gemini " + gemini}; !slices.Equal(got, want) {
		t.Errorf("with Gemini CLI's: %q, want %q", got, want)
	}
	os.Remove(gemini)
	otherClaude := mk("cc", "projects")
	archived := mk("cx", "archived_sessions")
	env := map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(home, "cc"), "CODEX_HOME": filepath.Join(home, "cx")}
	if got, want := paths(env), []string{"claude-code " + otherClaude, "codex " + archived}; !slices.Equal(got, want) {
		t.Errorf("from the environment: %q, want %q", got, want)
	}
}
