package importer

import (
	"os"
	"path/filepath"
)

// AgentFolder is a folder where an agent keeps its sessions.
type AgentFolder struct {
	Format Format // the agent's format
	Path   string
}

// AgentFolders are the folders where the agents keep their sessions on
// this machine, each one that exists, in this order:
//   - Claude Code: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects;
//   - Codex: sessions/ and archived_sessions/ of $CODEX_HOME, else of
//     ~/.codex;
//   - Gemini CLI: ~/.gemini/tmp, a folder a project, chats/ in each.
//
// getenv reads the environment (os.Getenv); home is the user's home.
func AgentFolders(getenv func(string) string, home string) []AgentFolder {
	var out []AgentFolder
	for _, f := range AgentFoldersToBe(getenv, home) {
		if fi, err := os.Stat(f.Path); err == nil && fi.IsDir() {
			out = append(out, f)
		}
	}
	return out
}

// AgentFoldersToBe are the folders of AgentFolders, those that do not
// exist yet too (the agent has not run on this machine): what a sync
// --watch waits for.
func AgentFoldersToBe(getenv func(string) string, home string) []AgentFolder {
	claude, codex := claudeHome(getenv, home), codexHome(getenv, home)
	return []AgentFolder{
		{ClaudeCode, filepath.Join(claude, "projects")},
		{Codex, filepath.Join(codex, "sessions")},
		{Codex, filepath.Join(codex, "archived_sessions")},
		{Gemini, filepath.Join(home, ".gemini", "tmp")},
	}
}

// claudeHome is Claude Code's folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func claudeHome(getenv func(string) string, home string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(home, ".claude")
}

// codexHome is Codex's folder: $CODEX_HOME, else ~/.codex.
func codexHome(getenv func(string) string, home string) string {
	if d := getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(home, ".codex")
}
