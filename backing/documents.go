package backing

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Documents a harness keeps with a session beside its messages, each a
// JSON object: its task list (tasks.json) and what it remembers
// (memory.json). A document is the "data" of the last typed event of its
// kind in a branch:
//
//	{"role":"event","content":"","event":"tasks","data":{…}}
//
// so a change to it is an append (no engine keeps anything more, and no
// earlier version is lost), a fork has it as it was at the fork point,
// and finding it reads the branch's typed events (View.Typed), not its
// messages.
const (
	DocTasks  = "tasks"
	DocMemory = "memory"
)

// DocKinds are the documents, in the order a listing shows them.
var DocKinds = []string{DocTasks, DocMemory}

// MaxDocument bounds a document, in bytes as given.
const MaxDocument = 1 << 20

// emptyDocument is a document never set.
var emptyDocument = []byte("{}")

// CheckDocument refuses what cannot be a document: anything but one JSON
// object in valid UTF-8 of at most MaxDocument bytes.
func CheckDocument(doc []byte) error {
	switch {
	case len(doc) > MaxDocument:
		return fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(doc), MaxDocument)
	case !utf8.Valid(doc):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalid)
	case !json.Valid(doc):
		var v any
		return fmt.Errorf("%w: not valid JSON: %v", ErrInvalid, json.Unmarshal(doc, &v))
	case FirstByte(doc) != '{':
		return fmt.Errorf("%w: the document must be a JSON object", ErrInvalid)
	}
	return nil
}

// DocumentEvent is the event line that sets document kind to doc, which
// CheckDocument accepts; it is kept compact, as every stored line is.
func DocumentEvent(kind string, doc []byte) ([]byte, error) {
	if err := CheckDocument(doc); err != nil {
		return nil, err
	}
	return eventLine(kind, doc), nil
}

// Document is document kind of the branch v shows, compact ({} when it
// was never set), and when it was set (the zero time if never).
func Document(v View, kind string) (doc []byte, set time.Time, err error) {
	typed := v.Typed()
	for i := len(typed) - 1; i >= 0; i-- {
		msgs, err := v.Read(typed[i], typed[i]+1)
		if err != nil {
			return nil, time.Time{}, err
		}
		var e struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
			TS    string          `json:"ts"`
		}
		if json.Unmarshal(msgs[0].Raw, &e) != nil || e.Event != kind || FirstByte(e.Data) != '{' {
			continue // another kind, or a line of this kind that sets nothing
		}
		t, _ := time.Parse(time.RFC3339Nano, e.TS)
		return e.Data, t, nil
	}
	return emptyDocument, time.Time{}, nil
}
