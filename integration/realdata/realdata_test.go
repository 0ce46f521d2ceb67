package realdata

import (
	"path/filepath"
	"testing"
)

// Every agent has sessions kept, wherever the shared folder keeps them,
// and each file is told its agent.
func TestFilesOfEveryAgent(t *testing.T) {
	if Shared() == "" {
		t.Skip("no shared folder beside the repository")
	}
	for _, agent := range Agents {
		files, err := Files(agent)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("no sessions of %s", agent)
		}
		for _, f := range files {
			if got := Agent(f); got != agent {
				t.Errorf("Agent(%s) = %q, want %q", f, got, agent)
			}
			if filepath.Ext(f) != ".jsonl" {
				t.Errorf("%s is not a session file", f)
			}
		}
	}
	all, _ := Files()
	if Agent("/home/codex/x/shared/data/gemini/a.jsonl") != "gemini" || Agent("/tmp/a.jsonl") != "" || len(all) < len(Agents) {
		t.Errorf("Agent or Files() wrong: %d files in all", len(all))
	}
}
