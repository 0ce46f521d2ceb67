package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/sessfs/sessfs/backing"
)

// Origin is what meta.json's "source" records of where an imported
// session came from, the one place that reads and writes it: an import
// finds a session by it and grows it, Original checks against it what it
// gives back.
type Origin struct {
	Format   Format // "format": claude-code, codex or gemini
	ID       string // "id": the agent's id for the session, "" when the source has none
	Path     string // "path": the file first imported
	Subagent string // "subagent": "agent-<id>" for a subagent's own file
	Forked   string // "forked_from_id": the Codex session this one was forked from

	// What a sync found of the source since (sync.go): Gone is when the
	// file was found deleted (RFC 3339, "" while it is there); ReplacedBy
	// is the session that keeps the source as the agent rewrote it, this
	// one keeping it as it was.
	Gone       string // "gone"
	ReplacedBy string // "replaced_by"

	// NoMessages says the source held no message line when it was first
	// imported: a Gemini CLI --resume's left-behind file (gemini_resume.go).
	NoMessages bool // "no_messages"

	// What has been imported of the source: its first Bytes bytes, of
	// hash SHA256, every line of them stored when Complete. Bytes is nil
	// for a session imported by a sessfs that did not record them.
	Bytes    *int   // "bytes"
	SHA256   string // "sha256"
	Complete bool   // "complete"
	// MTime is the file's modification time when those bytes were read
	// (RFC 3339, nanoseconds): a file of Bytes bytes and this time is
	// taken for unchanged without a read, as rsync's quick check does.
	MTime string // "mtime"

	// rest is every other field as written (what the source says of
	// itself: version, gitBranch, cli_version, git, …, which transcript
	// headers show), and a field above whose value is not of its type.
	// A rewrite keeps them.
	rest map[string]json.RawMessage
}

// OriginOf is the Origin meta.json m records; false when it records none
// (a session not imported) or one that is not a JSON object.
func OriginOf(m backing.Meta) (Origin, bool) {
	var o Origin
	raw := m.Extra["source"]
	if raw == nil || json.Unmarshal(raw, &o) != nil {
		return Origin{}, false
	}
	return o, true
}

func (o *Origin) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	if fields == nil {
		return errors.New("source: null, not an object")
	}
	*o = Origin{}
	o.set(fields)
	return nil
}

// set sets the fields named in fields: those of Origin's own that hold a
// value of their type, the others kept as they are in rest.
func (o *Origin) set(fields map[string]json.RawMessage) {
	for k, v := range fields {
		var field any
		switch k {
		case "format":
			field = &o.Format
		case "id":
			field = &o.ID
		case "path":
			field = &o.Path
		case "subagent":
			field = &o.Subagent
		case "forked_from_id":
			field = &o.Forked
		case "gone":
			field = &o.Gone
		case "replaced_by":
			field = &o.ReplacedBy
		case "mtime":
			field = &o.MTime
		case noMessagesKey:
			field = &o.NoMessages
		case "bytes":
			field = &o.Bytes
		case "sha256":
			field = &o.SHA256
		case "complete":
			field = &o.Complete
		}
		if field != nil && string(v) != "null" && json.Unmarshal(v, field) == nil {
			delete(o.rest, k)
			continue
		}
		if o.rest == nil {
			o.rest = map[string]json.RawMessage{}
		}
		o.rest[k] = v
	}
}

// MarshalJSON writes the fields of rest and those of Origin's own that
// are set, in one object.
func (o Origin) MarshalJSON() ([]byte, error) {
	fields := make(map[string]any, len(o.rest)+8)
	for k, v := range o.rest {
		fields[k] = v
	}
	for k, v := range map[string]string{"format": string(o.Format), "id": o.ID, "path": o.Path,
		"subagent": o.Subagent, "forked_from_id": o.Forked, "sha256": o.SHA256,
		"gone": o.Gone, "replaced_by": o.ReplacedBy, "mtime": o.MTime} {
		if v != "" {
			fields[k] = v
		}
	}
	if o.Bytes != nil {
		fields["bytes"] = *o.Bytes
	}
	if o.Complete {
		fields["complete"] = true
	}
	if o.NoMessages {
		fields[noMessagesKey] = true
	}
	return json.Marshal(fields)
}

// imported records data as what has been imported of the source (not yet
// all stored: see Complete). A re-import checks the source still starts
// with it (it only grew), and an export of the original that it gives it
// back.
func (o *Origin) imported(data []byte) {
	sum := sha256.Sum256(data)
	o.importedSum(len(data), hex.EncodeToString(sum[:]))
}

// importedSum is imported of the first n bytes of a source, of hash sum
// (hex SHA-256), as an import that reads the source in pieces knows them.
func (o *Origin) importedSum(n int, sum string) {
	o.Bytes, o.SHA256 = &n, sum
}

// holds says whether data is exactly what has been imported.
func (o Origin) holds(data []byte) bool {
	if o.Bytes == nil || *o.Bytes != len(data) {
		return false // no hash to make
	}
	sum := sha256.Sum256(data)
	return o.holdsSum(len(data), hex.EncodeToString(sum[:]))
}

// holdsSum is holds of n bytes of hash sum (hex SHA-256).
func (o Origin) holdsSum(n int, sum string) bool {
	return o.Bytes != nil && *o.Bytes == n && sum == o.SHA256
}

// key is the key of the source o names.
func (o Origin) key() sourceKey {
	k := sourceKey{format: o.Format, id: o.ID, subagent: o.Subagent}
	if o.ID == "" || o.Format == Gemini {
		k.file = filepath.Base(o.Path)
	}
	return k
}
