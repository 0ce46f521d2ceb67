package backing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Session states.
const (
	StateActive   = "active"
	StateArchived = "archived"
	StateTrashed  = "trashed"
)

// Meta is a session's meta.json. Fields it does not name are kept in Extra
// and written back as given, so tools may store their own.
type Meta struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Cwd      string    `json:"cwd,omitempty"`
	Project  string    `json:"project,omitempty"`
	Model    string    `json:"model,omitempty"`
	Provider string    `json:"provider,omitempty"`
	Tags     []string  `json:"tags"`
	State    string    `json:"state"`
	// Parent is the id of the session this one was derived from, if any.
	Parent string `json:"parent,omitempty"`
	// Trashed is when the session went to the trash; zero otherwise.
	Trashed time.Time `json:"trashed,omitzero"`

	Extra map[string]json.RawMessage `json:"-"`
}

// metaFields are the keys Meta owns; every other key goes to Extra.
var metaFields = map[string]bool{
	"id": true, "name": true, "title": true, "created": true, "updated": true,
	"cwd": true, "project": true, "model": true, "provider": true, "tags": true,
	"state": true, "parent": true, "trashed": true,
}

type metaAlias Meta // no methods: breaks the MarshalJSON recursion

// MarshalJSON writes the known fields, then the extra ones, indented so
// that the file reads well in an editor.
func (m Meta) MarshalJSON() ([]byte, error) {
	if m.Tags == nil {
		m.Tags = []string{}
	}
	known, err := json.Marshal(metaAlias(m))
	if err != nil {
		return nil, err
	}
	if len(m.Extra) == 0 {
		return known, nil
	}
	extra, err := json.Marshal(m.Extra) // map keys sort: stable output
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(known[:len(known)-1])
	b.WriteByte(',')
	b.Write(extra[1:])
	return b.Bytes(), nil
}

// UnmarshalJSON reads the known fields and keeps the others in Extra.
func (m *Meta) UnmarshalJSON(data []byte) error {
	var a metaAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	a.Extra = nil
	for k, v := range all {
		if !metaFields[k] {
			if a.Extra == nil {
				a.Extra = map[string]json.RawMessage{}
			}
			a.Extra[k] = v
		}
	}
	*m = Meta(a)
	return nil
}

// EncodeMeta is meta.json's bytes: indented JSON and a final newline.
func EncodeMeta(m Meta) ([]byte, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// DecodeMeta parses a meta.json a user gives: a JSON object with an id, in
// valid UTF-8. encoding/json would turn invalid bytes into U+FFFD in known
// fields and keep them raw in the others; they are refused instead, as an
// append refuses them.
func DecodeMeta(data []byte) (Meta, error) {
	if !utf8.Valid(data) {
		return Meta{}, fmt.Errorf("%w: meta.json: not valid UTF-8", ErrInvalid)
	}
	return DecodeStoredMeta(data)
}

// DecodeStoredMeta parses a stored meta.json. It is DecodeMeta without the
// UTF-8 rule, so that a file stored before the rule still reads; fsck
// reports it.
func DecodeStoredMeta(data []byte) (Meta, error) {
	var m Meta
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return m, fmt.Errorf("%w: meta.json must be a JSON object", ErrInvalid)
	}
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return m, fmt.Errorf("%w: meta.json: %v", ErrInvalid, err)
	}
	return m, nil
}

// CheckMetaDoc is the check of a meta.json a user writes for session id:
// a JSON object in valid UTF-8 with the session's id.
func CheckMetaDoc(id string, doc []byte) (Meta, error) {
	in, err := DecodeMeta(doc)
	if err != nil {
		return in, err
	}
	if in.ID != id {
		return in, fmt.Errorf("%w: meta.json: \"id\" is %q and cannot change", ErrInvalid, id)
	}
	return in, nil
}

// Edited is old after a user's edit in (checked by CheckMetaDoc) at time
// t: the fields the store owns (id, name, dates, state, trash time) keep
// their values whatever in says; every other field, known or not, takes
// in's value, and a field in leaves out is removed.
func Edited(old, in Meta, t time.Time) Meta {
	m := in
	m.ID, m.Name, m.Created, m.State, m.Trashed = old.ID, old.Name, old.Created, old.State, old.Trashed
	m.Updated = t
	return m
}

// ValidExtra checks a field of meta.json that the store does not own, as
// SetExtra sets it: not one of Meta's keys, a JSON value in valid UTF-8.
func ValidExtra(key string, v json.RawMessage) error {
	if metaFields[key] {
		return fmt.Errorf("%w: meta.json: %q belongs to the store", ErrInvalid, key)
	}
	if !utf8.ValidString(key) || (v != nil && !utf8.Valid(v)) {
		return fmt.Errorf("%w: meta.json: %q: not valid UTF-8", ErrInvalid, key)
	}
	if v != nil && !json.Valid(v) {
		return fmt.Errorf("%w: meta.json: %q: not a JSON value", ErrInvalid, key)
	}
	return nil
}

// PutExtra sets field key of the fields beside the known ones, or removes
// it when v is nil: what every engine's SetExtra does, once ValidExtra
// accepted it.
func (m *Meta) PutExtra(key string, v json.RawMessage) {
	if v == nil {
		delete(m.Extra, key)
		return
	}
	if m.Extra == nil {
		m.Extra = map[string]json.RawMessage{}
	}
	m.Extra[key] = v
}
