package main

import (
	"os"
	"path/filepath"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

// agentFileHistory is what reads the agents' own file histories for
// revert-code and the mount: Claude Code's, in $CLAUDE_CONFIG_DIR or
// ~/.claude of the user running sessfs. Without a home folder there is
// none to read, and sessfs's own snapshots still are.
func agentFileHistory() backing.AgentFileHistory {
	home, _ := os.UserHomeDir()
	h := importer.NewClaudeFileHistory(os.Getenv, home)
	if !filepath.IsAbs(h.Dir) {
		return nil
	}
	return h
}
