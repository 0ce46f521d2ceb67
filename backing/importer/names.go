package importer

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/sessfs/sessfs/backing"
)

// An imported session is named to be read and typed: the agent's own
// short name for it (Claude Code's slug, "expressive-chasing-pie"), else a
// few words of its title ("fix-the-flaky-upload-test"), else its format and
// the end of its id ("codex-7fad920aa6f9"). A name another session has
// takes a suffix, -2, -3, …. A subagent's file is named after its session:
// "<session's name>-agent-<id>". The name is chosen once, at the first
// import; later imports find the session by its source's id (the
// Importer's index, index.go), so the user may rename it.

// Bounds of a name made of words: a few, one short column in ls.
const (
	slugMaxBytes = 40
	slugMaxWords = 6
)

// slug makes a name of a title or an agent's short name: its words,
// lower-case, joined by '-'. Only ASCII letters and digits are kept; a word
// with other letters is left out whole, and words are taken in order while
// they fit in slugMaxBytes and slugMaxWords, so no word is ever cut. ""
// when no word is left.
func slug(s string) string {
	// An apostrophe joins a word ("don't" is "dont"), it does not split it.
	s = strings.NewReplacer("'", "", "\u2019", "").Replace(strings.ToLower(s))
	var b strings.Builder
	words := 0
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
			continue
		}
		n := len(w)
		if b.Len() > 0 {
			n++ // the '-'
		}
		if words == slugMaxWords || b.Len()+n > slugMaxBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
		words++
	}
	return b.String()
}

// nameBase is the name a new session of src takes unless it is taken, and
// fallback the one it takes when no suffix of base is free or valid.
func (r *Importer) nameBase(k sourceKey, src *Session) (base, fallback string) {
	id := k.id
	if id == "" {
		id = strings.TrimSuffix(k.file, ".jsonl") // k.file is a base name already
	}
	fallback = string(k.format) + "-" + shortID(id)
	base = slug(src.Slug)
	if base == "" {
		base = slug(src.Title)
	}
	if k.subagent != "" {
		fallback += "-" + k.subagent
		if s, m, err := r.find(sourceKey{format: k.format, id: k.id, file: k.file}); err == nil && s != nil {
			base = m.Name // its session's name, as the user may have renamed it
		}
		if base != "" {
			base += "-" + k.subagent
		}
	}
	if base == "" {
		base = fallback
	}
	return base, fallback
}

// maxSuffix bounds the names tried for one session: base, base-2, …
const maxSuffix = 100

// create makes the session of a source under the first name of base,
// base-2, … (then fallback, fallback-2, …) that is free and valid.
func (r *Importer) create(base, fallback string, meta backing.Meta) (backing.Session, backing.Meta, error) {
	for _, stem := range []string{base, fallback} {
		for i := 1; i <= maxSuffix; i++ {
			name := stem
			if i > 1 {
				name = fmt.Sprintf("%s-%d", stem, i)
			}
			s, m, err := r.st.Create(name, meta)
			// Taken, reserved ("archive") or too long: the next one.
			if errors.Is(err, backing.ErrExist) || errors.Is(err, backing.ErrBadName) {
				continue
			}
			return s, m, err
		}
	}
	return nil, meta, fmt.Errorf("no free name for the session: %s and %s to %s-%d are all taken", base, fallback, fallback, maxSuffix)
}

// shortID is the last twelve characters of an id: random in UUIDs v4 and
// v7 alike (a v7's first ones are its time, shared by sessions of one
// minute), and enough to tell a person's sessions apart.
func shortID(id string) string {
	id = strings.ReplaceAll(id, "-", "")
	if len(id) > 12 {
		return id[len(id)-12:]
	}
	return id
}
