// Package realdata finds the real agent sessions the team keeps beside the
// repository, in ../shared (see data/SOURCES.md and formats-next/README.md
// there), for the tests and benchmarks of every package.
//
// The sessions of a format sessfs learnt to read late stay in
// formats-next/: that folder is outside the repository and is laid out
// afresh for every session and CI run, so they cannot be moved into data/
// for good. This is the one place that knows both folders.
package realdata

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Agents are the agents whose sessions are kept, each in a folder of its
// name in data/ or formats-next/.
var Agents = []string{"claude-code", "codex", "gemini"}

// folders are where sessions are kept, under the shared folder.
var folders = []string{"data", "formats-next"}

// Shared is the shared folder beside the repository that holds the working
// directory, or "" when there is none.
func Shared() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(filepath.Dir(dir), "shared")
			if _, err := os.Stat(filepath.Join(shared, "data")); err != nil {
				return ""
			}
			return shared
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// Folders are the folders of the shared folder that keep sessions, for
// commands that import a folder; none when there is no shared folder.
func Folders() []string {
	shared := Shared()
	if shared == "" {
		return nil
	}
	var out []string
	for _, f := range folders {
		if _, err := os.Stat(filepath.Join(shared, f)); err == nil {
			out = append(out, filepath.Join(shared, f))
		}
	}
	return out
}

// Files are the session files (*.jsonl, at any depth) written by the
// given agents, by all of them when none is given, sorted by path. A file
// kept in both folders is listed once. No shared folder means no files.
func Files(agents ...string) ([]string, error) {
	shared := Shared()
	if shared == "" {
		return nil, nil
	}
	if len(agents) == 0 {
		agents = Agents
	}
	var out []string
	seen := map[string]bool{}
	for _, folder := range folders {
		for _, agent := range agents {
			root := filepath.Join(shared, folder, agent)
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") && !seen[d.Name()] {
					seen[d.Name()] = true
					out = append(out, p)
				}
				return nil
			})
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Agent is the agent whose folder holds path, one of Agents, or "".
func Agent(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if slices.Contains(folders, parts[i]) && slices.Contains(Agents, parts[i+1]) {
			return parts[i+1]
		}
	}
	return ""
}
