package importer

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SourceFiles is the source files paths name, in the order an import
// takes them: a file as it is, a folder (a symbolic link to one too) as
// the *.jsonl files below it and Gemini CLI's session-*.json documents
// (not every *.json: its folders also hold logs.json and checkpoints),
// sorted, named by the folder the links lead
// to (the paths meta.json records). A session's own file comes before its
// subagents' files (subagents/agent-*.jsonl), so their names print in
// that order and a subagent links to a session already in.
func SourceFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		// Stat followed the links to a folder; WalkDir does not follow a
		// link at its root, and found nothing there. Walk the folder they
		// lead to, and name its files by it: the paths meta.json records.
		if p, err = filepath.EvalSymlinks(p); err != nil {
			return nil, err
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isSourceName(d.Name()) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return subagentOf(out[i]) == "" && subagentOf(out[j]) != "" })
	return out, nil
}

// subagentOf names the subagent whose file path is (Claude Code writes
// <session>/subagents/agent-<id>.jsonl, its lines under the parent's
// sessionId), or "" for a session's own file.
func subagentOf(path string) string {
	if filepath.Base(filepath.Dir(path)) != "subagents" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

// isSourceName says whether a file found in a folder is a session file by
// its name: any *.jsonl (Claude Code's, Codex's, Gemini CLI's), and
// Gemini CLI's older session-*.json.
func isSourceName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") ||
		(strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".json"))
}
