package filestore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// meta.json must be valid UTF-8, as a message must: an edit with invalid
// bytes, in a known field or a field of the user's, is refused and changes
// nothing, rather than stored with U+FFFD or raw.
func TestMetaRefusesInvalidUTF8(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "m")
	m, _ := s.Meta()
	path := filepath.Join(s.Dir(), "meta.json")
	before, _ := os.ReadFile(path)
	for name, doc := range map[string]string{
		"title":       `{"id":"` + m.ID + `","title":"bad ` + "\xff" + `"}`,
		"custom":      `{"id":"` + m.ID + `","mine":"bad ` + "\xfe\xff" + `"}`,
		"custom key":  `{"id":"` + m.ID + `","k` + "\xff" + `":1}`,
		"nested tags": `{"id":"` + m.ID + `","tags":["` + "\xc3" + `"]}`,
	} {
		if _, err := s.EditMeta([]byte(doc)); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("%s: EditMeta = %v, want ErrInvalid", name, err)
		}
		if _, err := backing.DecodeMeta([]byte(doc)); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("%s: DecodeMeta = %v, want ErrInvalid", name, err)
		}
	}
	if err := s.SetTitle("bad \xff"); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("SetTitle = %v, want ErrInvalid", err)
	}
	if err := s.SetExtra("source", []byte("\"\xff\"")); !errors.Is(err, backing.ErrInvalid) {
		t.Errorf("SetExtra = %v, want ErrInvalid", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("a refused edit changed meta.json:\n%s\nwas\n%s", after, before)
	}
}

// A meta.json stored with invalid UTF-8 (before the rule, or by hand) still
// reads; fsck reports it and --repair replaces each invalid byte with
// U+FFFD, keeping the old file in quarantine.
func TestFsckMetaInvalidUTF8(t *testing.T) {
	st := openStore(t)
	s := newSession(t, st, "m")
	m, _ := s.Meta()
	path := filepath.Join(s.Dir(), "meta.json")
	old := []byte(`{"id":"` + m.ID + `","name":"m","title":"caf` + "\xe9" + `","mine":"` + "\xff" + `","state":"active","tags":[]}`)
	os.WriteFile(path, old, 0o600)
	if got, err := s.Meta(); err != nil || got.Title != "caf\uFFFD" {
		t.Fatalf("Meta of a stored invalid meta.json = %+v, %v", got, err)
	}
	rep, _ := st.Fsck(false)
	if !hasProblem(rep, "not valid UTF-8") {
		t.Fatalf("fsck = %+v", rep.Problems)
	}
	if rep, _ = st.Fsck(true); rep.Remaining() != 0 {
		t.Fatalf("fsck --repair = %+v", rep.Problems)
	}
	if rep, _ = st.Fsck(false); len(rep.Problems) != 0 {
		t.Fatalf("after repair: %+v", rep.Problems)
	}
	data, _ := os.ReadFile(path)
	if got, err := backing.DecodeMeta(data); err != nil || got.Title != "caf\uFFFD" || string(got.Extra["mine"]) != `"`+"\uFFFD"+`"` {
		t.Errorf("repaired meta.json = %+v, %v", got, err)
	}
	if q := readQuarantine(t, s); len(q) != 1 || q[0] != string(old) {
		t.Errorf("quarantine = %q", q)
	}
}
