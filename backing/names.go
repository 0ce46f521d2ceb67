package backing

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// MaxNameLen is the longest session or branch name, in bytes: the limit of
// a name in a Linux directory, so every name can be shown by the view.
const MaxNameLen = 255

// ErrNameTooLong is returned for names over MaxNameLen bytes; it wraps
// ErrBadName so callers that do not care about the difference need not.
var ErrNameTooLong = fmt.Errorf("%w: longer than %d bytes", ErrBadName, MaxNameLen)

// ReservedNames cannot name a session: the view keeps them for folders of
// its own beside the sessions (DESIGN.md, "The view"): archived and
// trashed sessions, the views recent/, by-project/ and by-tag/, search/
// and the ephemeral sessions of tmp/.
var ReservedNames = map[string]bool{
	"archive":    true,
	"trash":      true,
	"recent":     true,
	"by-project": true,
	"by-tag":     true,
	"search":     true,
	"tmp":        true,
}

// ValidName checks a branch name: 1–255 bytes of UTF-8, no '/', no NUL, no
// leading '.', so that it is one path element the kernel accepts and that
// ls shows.
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrBadName)
	case len(name) > MaxNameLen:
		return ErrNameTooLong
	case !utf8.ValidString(name):
		return fmt.Errorf("%w %q: not UTF-8", ErrBadName, name)
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("%w %q: contains '/' or NUL", ErrBadName, name)
	case name[0] == '.':
		return fmt.Errorf("%w %q: starts with '.'", ErrBadName, name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w %q: contains a control character", ErrBadName, name)
		}
	}
	return nil
}

// ValidSessionName is ValidName plus the reserved names of the view.
func ValidSessionName(name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	if ReservedNames[name] {
		return fmt.Errorf("%w %q: reserved for a view of the mount", ErrBadName, name)
	}
	return nil
}

// GeneratedName names a session created without a name: local date and time
// to the minute, then six hex digits of its id's random part, so names sort
// by creation and two sessions made in one minute still differ.
func GeneratedName(id uuid.UUID, t time.Time) string {
	return fmt.Sprintf("%s-%x", t.Local().Format("20060102-1504"), id[10:13])
}

// NewSessionMeta is the meta of a session being created at t, named name
// ("" for a generated name), with m's other fields: a new id (UUID v7),
// the state active, and the creation time t unless m's is earlier (an
// import of a session begun elsewhere). Every engine's Create starts here.
func NewSessionMeta(name string, m Meta, t time.Time) (Meta, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return m, err
	}
	if name == "" {
		name = GeneratedName(id, t)
	}
	if err := ValidSessionName(name); err != nil {
		return m, err
	}
	created := t
	if !m.Created.IsZero() && m.Created.Before(t) {
		created = m.Created
	}
	m.ID, m.Name, m.Created, m.Updated, m.State, m.Trashed = id.String(), name, created, t, StateActive, time.Time{}
	return m, nil
}

// ReceivedMeta is the meta of a session another store sent (Receiver),
// received at t: its id, which must be a UUID, its name, which must be
// valid, and its dates as they were (t for one that is missing); the
// state active, whatever it was there.
func ReceivedMeta(m Meta, t time.Time) (Meta, error) {
	id, err := uuid.Parse(m.ID)
	if err != nil {
		return m, fmt.Errorf("%w: session id %q: %v", ErrInvalid, m.ID, err)
	}
	if err := ValidSessionName(m.Name); err != nil {
		return m, err
	}
	if m.Created.IsZero() {
		m.Created = t
	}
	if m.Updated.IsZero() {
		m.Updated = t
	}
	m.ID, m.State, m.Trashed = id.String(), StateActive, time.Time{}
	return m, nil
}
