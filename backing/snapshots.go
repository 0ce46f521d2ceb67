package backing

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// File snapshots, the one place their rules are written (sessfs snapshot,
// sessfs revert-code, turns/<n>/files/ in the mount). A harness records a
// file's content before a turn edits it as a typed event:
//
//	{"role":"event","content":"","event":"file_snapshot","data":{
//	  "path":"/home/u/p/a.go","turn":3,"exists":true,
//	  "content":"package a\n","size":10,"sha256":"…","mode":420}}
//
// "path" is absolute and clean; "turn" (>= 1) is the turn the state is
// the one before; "exists": false records that the file did not exist
// (no content then). "content" is the file as a JSON string when it is
// valid UTF-8, else its bytes in base64 with "encoding":"base64"; "size"
// and "sha256" (hex), when given, must be the content's; "mode" is its
// permission bits. Being an event, a snapshot is kept by every engine as
// it is, inherited by a fork at its fork point, listed in events.jsonl,
// never rendered as conversation.
//
// The first snapshot of a path in a turn wins: a later one of the same
// turn and path (a second edit, a retry, two writers at once) is kept in
// the history and stands for nothing. Reverting to turn N restores each
// path snapshotted in a turn after N to its earliest such snapshot (the
// smallest turn, then the first line): its state before the first turn
// after N that edited it.
const EventFileSnapshot = "file_snapshot"

// SnapshotBase64 is the "encoding" of a snapshot whose content is not
// UTF-8.
const SnapshotBase64 = "base64"

// Snapshot is one recorded state of a file, as turns/<n>/files.json lists
// it.
type Snapshot struct {
	Path   string `json:"path"`
	Turn   int    `json:"turn"`
	Exists bool   `json:"exists"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"` // hex; "" when the line gives none
	Mode   uint32 `json:"mode,omitempty"`   // permission bits; 0 when not recorded
	// Index is the event's line in messages.jsonl (0-based, events
	// counted).
	Index int       `json:"message"`
	Time  time.Time `json:"ts,omitzero"`
	// Backup is where the content is on this machine, for a snapshot an
	// agent's own file history keeps (AgentFileHistory); "" for
	// sessfs's own, whose content is in its line.
	Backup string `json:"backup,omitempty"`
}

// SnapshotEvent is the event line recording content (nil when the file
// does not exist) as path's state before turn.
func SnapshotEvent(path string, turn int, content []byte, exists bool, mode fs.FileMode) ([]byte, error) {
	if err := checkSnapshotPath(path); err != nil {
		return nil, err
	}
	if turn < 1 {
		return nil, fmt.Errorf("%w: snapshot of %s: turn %d: turns count from 1", ErrInvalid, path, turn)
	}
	p, _ := json.Marshal(path)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"path":%s,"turn":%d,"exists":%t`, p, turn, exists)
	if exists {
		if utf8.Valid(content) {
			c, _ := json.Marshal(string(content))
			fmt.Fprintf(&b, `,"content":%s`, c)
		} else {
			fmt.Fprintf(&b, `,"content":"%s","encoding":%q`, base64.StdEncoding.EncodeToString(content), SnapshotBase64)
		}
		sum := sha256.Sum256(content)
		fmt.Fprintf(&b, `,"size":%d,"sha256":"%x","mode":%d`, len(content), sum, uint32(mode.Perm()))
	}
	b.WriteByte('}')
	return eventLine(EventFileSnapshot, b.Bytes()), nil
}

// checkSnapshot is CheckEvent's rule for a file_snapshot's data, beyond
// the types of its fields.
func checkSnapshot(data []byte) error {
	m := Members(data, "path", "turn", "exists", "content", "encoding", "size", "sha256")
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: event %q: "+format, append([]any{ErrInvalid, EventFileSnapshot}, a...)...)
	}
	if m[0] == nil {
		return bad("data.path is required")
	}
	if err := checkSnapshotPath(stringOf(m[0])); err != nil {
		return err
	}
	if turn, err := strconv.ParseFloat(string(bytes.TrimSpace(m[1])), 64); m[1] == nil || err != nil || turn < 1 {
		return bad("data.turn must be a turn, from 1")
	}
	if m[2] == nil {
		return bad("data.exists is required: true or false")
	}
	if string(bytes.TrimSpace(m[2])) == "false" {
		for k, name := range []string{"content", "encoding", "size", "sha256"} {
			if m[3+k] != nil {
				return bad("data.%s given for a file that did not exist", name)
			}
		}
		return nil
	}
	if m[3] == nil {
		return bad("data.content is required when the file exists")
	}
	content, err := snapshotContent(m[3], m[4])
	if err != nil {
		return bad("%v", err)
	}
	if m[5] != nil {
		if n := count(m[5]); n != int64(len(content)) {
			return bad("data.size says %s bytes, the content has %d", bytes.TrimSpace(m[5]), len(content))
		}
	}
	if m[6] != nil {
		if sum := sha256.Sum256(content); !strings.EqualFold(stringOf(m[6]), hex.EncodeToString(sum[:])) {
			return bad("data.sha256 is not the content's")
		}
	}
	return nil
}

// checkSnapshotPath: a snapshot's path is absolute and clean, so that one
// file has one name.
func checkSnapshotPath(path string) error {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || strings.IndexByte(path, 0) >= 0 {
		return fmt.Errorf("%w: snapshot path %q must be absolute and clean (as filepath.Abs makes it)", ErrInvalid, path)
	}
	return nil
}

// snapshotContent decodes a snapshot's content member by its encoding
// member (nil: UTF-8 text).
func snapshotContent(content, encoding []byte) ([]byte, error) {
	var s string
	if err := json.Unmarshal(content, &s); err != nil {
		return nil, fmt.Errorf("data.content must be a string")
	}
	switch enc := stringOf(encoding); {
	case encoding == nil:
		return []byte(s), nil
	case enc == SnapshotBase64:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("data.content is not base64: %v", err)
		}
		return b, nil
	default:
		return nil, fmt.Errorf("data.encoding %q: the only encoding is %q", enc, SnapshotBase64)
	}
}

// AgentFileHistory reads the snapshots an agent's own file keeps (Claude
// Code's file history), from the lines an import kept as events.
type AgentFileHistory interface {
	// Files reads imported event line raw of session m: the message id
	// of the prompt whose turn its states come before, and the files it
	// records; none when the line records no file.
	Files(m Meta, raw []byte) (prompt string, files []AgentFile)
}

// AgentFile is one file an agent's snapshot records.
type AgentFile struct {
	Path   string // absolute
	Exists bool   // false: the file did not exist
	// Backup is the agent's copy of the file on this machine; a file
	// that exists and whose copy is not there is no snapshot here.
	Backup string
}

// Snapshots lists the snapshots of the branch v shows that stand (the
// first of each turn and path), in the order of their lines; with h, the
// ones an agent's own file history keeps too (m is the session's meta).
// Lines that break the rule stand for nothing.
func Snapshots(v View, m Meta, h AgentFileHistory) ([]Snapshot, error) {
	at := v.Typed()
	if h != nil {
		at = v.EventsAt()
	}
	var out []Snapshot
	seen := map[snapKey]bool{}
	add := func(s Snapshot) {
		if k := (snapKey{s.Turn, s.Path}); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	agent := agentTurns{v: v}
	for _, i := range at {
		msgs, err := v.Read(i, i+1)
		if err != nil {
			return nil, err
		}
		raw := msgs[0].Raw
		if s, ok := snapshotOf(raw); ok {
			s.Index = i
			add(s)
			continue
		}
		if h == nil || !isImported(raw) {
			continue
		}
		prompt, files := h.Files(m, raw)
		if len(files) == 0 {
			continue
		}
		turn, err := agent.turn(prompt, i)
		if err != nil {
			return nil, err
		}
		t, _ := MessageTime(raw)
		for _, f := range files {
			s := Snapshot{Path: f.Path, Turn: turn, Exists: f.Exists, Index: i, Time: t, Backup: f.Backup}
			if checkSnapshotPath(s.Path) != nil {
				continue
			}
			if s.Exists {
				fi, err := os.Stat(f.Backup)
				if err != nil || !fi.Mode().IsRegular() {
					continue // its copy is not on this machine
				}
				s.Size, s.Mode = fi.Size(), uint32(fi.Mode().Perm())
			}
			add(s)
		}
	}
	return out, nil
}

type snapKey struct {
	turn int
	path string
}

// isImported says whether a stored line came from an agent's file.
func isImported(raw []byte) bool { return Members(raw, "source_seq")[0] != nil }

// snapshotOf reads a stored line as a snapshot: a typed file_snapshot
// event whose data names a clean absolute path, a turn and whether the
// file existed. What it says of the content is checked when the content
// is read.
func snapshotOf(raw []byte) (Snapshot, bool) {
	var s Snapshot
	f := Members(raw, "event", "data", "source_seq")
	data := f[1]
	if stringOf(f[0]) != EventFileSnapshot || f[2] != nil { // an agent's line is not ours
		return s, false
	}
	var content, encoding []byte
	exists := []byte(nil)
	EachMember(data, func(key string, v []byte) {
		v = bytes.TrimSpace(v)
		switch key {
		case "path":
			s.Path = stringOf(v)
		case "turn":
			s.Turn = int(count(v)) // 3, or 3.0 as an encoder writes a float (CheckEvent's rule)
		case "exists":
			exists = v
		case "content":
			content = v
		case "encoding":
			encoding = v
		case "size":
			s.Size = count(v)
		case "sha256":
			s.SHA256 = strings.ToLower(stringOf(v))
		case "mode":
			s.Mode = uint32(count(v)) & 0o7777
		}
	})
	s.Exists = string(exists) == "true"
	if checkSnapshotPath(s.Path) != nil || s.Turn < 1 || (!s.Exists && string(exists) != "false") {
		return s, false
	}
	if s.Exists && Members(data, "size")[0] == nil { // a line written by hand: its size is its content's
		c, err := snapshotContent(content, encoding)
		if err != nil {
			return s, false
		}
		s.Size = int64(len(c))
	}
	if !s.Exists {
		s.Size, s.SHA256, s.Mode = 0, "", 0
	}
	s.Time, _ = MessageTime(raw)
	return s, true
}

// SnapshotContent is the content snapshot s records of the branch v
// shows (nil for a file that did not exist).
func SnapshotContent(v View, s Snapshot) ([]byte, error) {
	if !s.Exists {
		return nil, nil
	}
	if s.Backup != "" {
		return os.ReadFile(s.Backup)
	}
	msgs, err := v.Read(s.Index, s.Index+1)
	if err != nil {
		return nil, err
	}
	m := Members(Members(msgs[0].Raw, "data")[0], "content", "encoding")
	c, err := snapshotContent(m[0], m[1])
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot of %s in line %d: %v", ErrInvalid, s.Path, s.Index, err)
	}
	return c, nil
}

// TurnSnapshots are the snapshots of turn k among all.
func TurnSnapshots(all []Snapshot, k int) []Snapshot {
	var out []Snapshot
	for _, s := range all {
		if s.Turn == k {
			out = append(out, s)
		}
	}
	return out
}

// agentTurns finds the turn an agent's snapshot comes before: the turn
// of the message whose id is its prompt's, looked for on from the
// snapshot's line (Claude Code writes a snapshot as its prompt is sent,
// right before it); else the turn the line is in (an update written
// later in the turn; turn 1 for a line before any prompt).
type agentTurns struct {
	v     View
	known map[string]int // prompt id → its turn
}

// agentLook is how many messages after a snapshot's line its prompt is
// looked for.
const agentLook = 16

func (a *agentTurns) turn(prompt string, i int) (int, error) {
	if t, ok := a.known[prompt]; ok && prompt != "" {
		return t, nil
	}
	msgs, err := a.v.Read(i+1, min(i+1+agentLook, a.v.Len()))
	if err != nil {
		return 0, err
	}
	turn := a.v.TurnOf(i) // before any prompt: turn 1
	for k, msg := range msgs {
		if prompt != "" && IDOf(msg.Raw) == prompt {
			turn = a.v.TurnOf(i + 1 + k)
			break
		}
	}
	if a.known == nil {
		a.known = map[string]int{}
	}
	a.known[prompt] = turn
	return turn, nil
}
