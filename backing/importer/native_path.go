package importer

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// NativePath is where the agent of format f looks for session n, which
// WriteNative wrote, so that its resume command finds it:
//   - Claude Code: projects/<cwd>/<id>.jsonl in claudeHome, the cwd with
//     its links resolved and every character not a letter or digit made
//     "-", as Claude Code names the folder of the cwd it runs in;
//   - Codex: sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl
//     in codexHome, in local time, as Codex names a new rollout.
//
// getenv reads the environment (os.Getenv); home is the user's home.
func NativePath(n Native, getenv func(string) string, home string) (string, error) {
	switch n.Format {
	case ClaudeCode:
		cwd, err := filepath.EvalSymlinks(n.Cwd)
		if err != nil {
			return "", fmt.Errorf("the session's folder: %w", err)
		}
		project := claudeProjectChars.ReplaceAllString(cwd, "-")
		return filepath.Join(claudeHome(getenv, home), "projects", project, n.ID+".jsonl"), nil
	case Codex:
		t := n.Created.Local()
		return filepath.Join(codexHome(getenv, home), "sessions", t.Format("2006"), t.Format("01"), t.Format("02"),
			"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+n.ID+".jsonl"), nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownFormat, n.Format)
}

var claudeProjectChars = regexp.MustCompile(`[^a-zA-Z0-9]`)

// ResumeCommand is the agent's own command that continues session id,
// run in the session's folder.
func ResumeCommand(f Format, id string) []string {
	switch f {
	case ClaudeCode:
		return []string{"claude", "--resume", id}
	case Codex:
		return []string{"codex", "resume", id}
	}
	return nil
}
