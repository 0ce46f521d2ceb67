package filestore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// A meta.json the store cannot read is mended by an edit with the
// session's id: the document replaces it, its name and state come from the
// name link, and the old bytes are kept in quarantine.
func TestEditMetaMendsDamage(t *testing.T) {
	st := openStore(t)
	for _, state := range []string{backing.StateActive, backing.StateArchived} {
		s := newSession(t, st, state)
		if state == backing.StateArchived {
			if err := st.Archive(state); err != nil {
				t.Fatal(err)
			}
		}
		broken := []byte(`{"id": "` + s.ID() + `", "title": `)
		if err := os.WriteFile(filepath.Join(s.Dir(), "meta.json"), broken, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Meta(); !errors.Is(err, backing.ErrInvalid) {
			t.Fatalf("damaged meta.json reads: %v", err)
		}
		if _, err := s.EditMeta([]byte(`{"id":"01a00000-0000-7000-8000-0000000000ff","title":"x"}`)); !errors.Is(err, backing.ErrInvalid) {
			t.Errorf("mend with another id: %v, want ErrInvalid", err)
		}
		m, err := s.EditMeta([]byte(`{"id":"` + s.ID() + `","title":"mended","name":"ignored"}`))
		if err != nil {
			t.Fatalf("mend: %v", err)
		}
		got, err := s.Meta()
		if err != nil || got.Title != "mended" || got.Name != state || got.State != state || got.Created.IsZero() || got.Title != m.Title || !got.Updated.Equal(m.Updated) {
			t.Errorf("mended meta = %+v, %v; EditMeta said %+v", got, err, m)
		}
		q, _ := filepath.Glob(filepath.Join(s.Dir(), "quarantine", "meta.json.*.bad"))
		if len(q) != 1 {
			t.Fatalf("quarantine holds %q", q)
		}
		if data, _ := os.ReadFile(q[0]); string(data) != string(broken) {
			t.Errorf("quarantined %q, want the old bytes", data)
		}
		if rep, err := st.Fsck(false); err != nil || len(rep.Problems) != 0 {
			t.Errorf("fsck after the mend: %+v, %v", rep.Problems, err)
		}
	}
}
