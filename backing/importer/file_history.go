package importer

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// Claude Code's file history: before a turn edits a file, Claude Code
// copies the file to <config>/file-history/<sessionId>/<name>@v<n> and
// writes a line naming the copy, so /rewind can put the code back. Two
// line shapes are known:
//
//	{"type":"file-history-snapshot","messageId":"<prompt uuid>","isSnapshotUpdate":false,
//	 "snapshot":{"messageId":"…","timestamp":"…","trackedFileBackups":{
//	   "src/a.go":{"backupFileName":"3f2a…@v2","version":2,"backupTime":"…"},
//	   "src/new.go":{"backupFileName":null,"version":1,"backupTime":"…"}}}}
//	{"type":"file-history-delta","messageId":"<prompt uuid>","trackingPath":"src/a.go",
//	 "backup":{"backupFileName":"3f2a…@v3","version":3,"backupTime":"…","realParentDir":"/home/u/p/src"}}
//
// A snapshot is written as the prompt is sent and lists every file tracked
// so far, each as it was then, so before the prompt's turn; an update
// (isSnapshotUpdate, or a delta) written later in the turn adds a file
// the turn is about to edit, as it was before the edit. A null
// backupFileName is a file that did not exist. A path is absolute, or
// relative to the session's folder; realParentDir, when there, is the
// folder the file is in.

// claudeBackupName is the only shape of a backup's file name believed: a
// name from the line must not reach outside the session's folder.
var claudeBackupName = regexp.MustCompile(`^[0-9a-f]{16}@v[0-9]+$`)

// ClaudeFileHistory reads the file history Claude Code keeps in Dir, its
// file-history folder. It is a backing.AgentFileHistory.
type ClaudeFileHistory struct{ Dir string }

var _ backing.AgentFileHistory = ClaudeFileHistory{}

// NewClaudeFileHistory is the file history of Claude Code on this
// machine: $CLAUDE_CONFIG_DIR/file-history, else ~/.claude/file-history.
func NewClaudeFileHistory(getenv func(string) string, home string) ClaudeFileHistory {
	return ClaudeFileHistory{Dir: filepath.Join(claudeHome(getenv, home), "file-history")}
}

// Files reads one imported event line of session m. Lines of sessions not
// imported from Claude Code, and lines of any other type, record none.
func (h ClaudeFileHistory) Files(m backing.Meta, raw []byte) (string, []backing.AgentFile) {
	// The event's kind first: a big session has many events, few of them
	// its file history.
	kind := backing.StringOf(backing.Members(raw, "event")[0])
	if kind != "file-history-snapshot" && kind != "file-history-delta" {
		return "", nil
	}
	o, ok := OriginOf(m)
	if !ok || o.Format != ClaudeCode || !plainName(o.ID) {
		return "", nil
	}
	src, err := SourceLine(raw)
	if err != nil {
		return "", nil
	}
	dir := filepath.Join(h.Dir, o.ID)
	f := backing.Members(src, "type", "messageId", "snapshot", "trackingPath", "backup")
	var prompt string
	var files []backing.AgentFile
	add := func(path string, backup []byte) {
		if file, ok := claudeFile(dir, m.Cwd, path, backup); ok {
			files = append(files, file)
		}
	}
	switch backing.StringOf(f[0]) {
	case "file-history-snapshot":
		snap := backing.Members(f[2], "messageId", "trackedFileBackups")
		prompt = backing.StringOf(snap[0])
		backing.EachMember(snap[1], func(path string, backup []byte) { add(path, backup) })
	case "file-history-delta":
		add(backing.StringOf(f[3]), f[4])
	default:
		return "", nil
	}
	if prompt == "" {
		prompt = backing.StringOf(f[1])
	}
	return prompt, files
}

// claudeFile is the file one entry of trackedFileBackups (or a delta's
// backup) records, with its copy in dir; false for an entry that names
// no absolute path or a copy of another shape.
func claudeFile(dir, cwd, path string, backup []byte) (backing.AgentFile, bool) {
	b := backing.Members(backup, "backupFileName", "realParentDir")
	switch parent := backing.StringOf(b[1]); {
	case path == "":
		return backing.AgentFile{}, false
	case filepath.IsAbs(parent):
		path = filepath.Join(parent, filepath.Base(path))
	case filepath.IsAbs(path):
		path = filepath.Clean(path)
	case filepath.IsAbs(cwd):
		path = filepath.Join(cwd, path)
	default:
		return backing.AgentFile{}, false
	}
	if b[0] == nil {
		return backing.AgentFile{}, false
	}
	if backing.FirstByte(b[0]) == 'n' { // null: it did not exist
		return backing.AgentFile{Path: path}, true
	}
	name := backing.StringOf(b[0])
	if !claudeBackupName.MatchString(name) {
		return backing.AgentFile{}, false
	}
	return backing.AgentFile{Path: path, Exists: true, Backup: filepath.Join(dir, name)}, true
}

// plainName says whether id can name a folder of its own: not empty, no
// separator, not a dot name.
func plainName(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, `/\`) && !strings.ContainsRune(id, 0)
}
