package pgstore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// TestSameAsFileEngine: the real sessions of ../shared/data, imported into
// the file engine and into this one, read the same: every branch's
// messages byte for byte with their turns, the counts, the catalog's rows
// and what each search finds (ranking aside: the two rank differently).
func TestSameAsFileEngine(t *testing.T) {
	fs, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	pg := open(t, pgtest.URL(t))
	realSessions(t, fs)
	realSessions(t, pg)

	names, _ := fs.Names()
	if got, _ := pg.Names(); !slices.Equal(got, names) {
		t.Fatalf("names: %q here, %q in the file engine", got, names)
	}
	ca, err := fs.Catalog(backing.CatalogQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := pg.Catalog(backing.CatalogQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	// Bytes aside: the "ts" each store adds is as long as its clock's
	// digits; it is checked against the views below.
	row := func(e backing.Entry) string {
		return fmt.Sprintf("%s %s %q %s %s %v %d %v %v", e.Name, e.State, e.Title, e.Agent, e.Project, e.Tags,
			e.Messages, e.LastActivity.UnixMicro(), e.ByModel)
	}
	for _, e := range cb {
		s, _ := pg.SessionByID(e.ID)
		bs, _ := s.Branches()
		n := int64(0)
		for _, b := range bs {
			v, _ := s.ViewID(b.ID)
			for i := v.Inherited(); i < v.Len(); i++ {
				n += int64(v.RawLen(i))
			}
		}
		if e.Bytes != n {
			t.Errorf("%s: catalog says %d bytes, its messages are %d", e.Name, e.Bytes, n)
		}
	}
	for i := range max(len(ca), len(cb)) {
		if i >= len(ca) || i >= len(cb) || row(ca[i]) != row(cb[i]) {
			t.Errorf("catalog row %d differs:\n%v\n%v (file engine)", i, cb[i:min(i+1, len(cb))], ca[i:min(i+1, len(ca))])
		}
	}

	// A fork of each, after its first turn, with a message of its own.
	for _, st := range []backing.Store{fs, pg} {
		for _, name := range names {
			s, _ := st.Session(name)
			v, _ := s.ViewID("")
			_, end, err := v.TurnRange(1)
			if err != nil {
				continue
			}
			f, err := s.Fork("", end, "t1")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AppendID(f.ID, [][]byte{[]byte(`{"role":"user","content":"the file test again","ts":"2026-01-01T00:00:00Z"}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range names {
		a, _ := fs.Session(name)
		b, _ := pg.Session(name)
		for _, branch := range []string{"t1"} {
			ba, errA := a.Branch(branch)
			bb, errB := b.Branch(branch)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s: branch %s: %v here, %v in the file engine", name, branch, errB, errA)
			}
			if errA != nil {
				continue
			}
			fa, _ := a.ViewID(ba.ID)
			fb, _ := b.ViewID(bb.ID)
			if fa.Len() != fb.Len() || fa.Inherited() != fb.Inherited() || fa.Turns() != fb.Turns() {
				t.Errorf("%s/%s: %d messages, %d inherited, %d turns here; %d, %d, %d in the file engine",
					name, branch, fb.Len(), fb.Inherited(), fb.Turns(), fa.Len(), fa.Inherited(), fa.Turns())
			}
		}
		ma, _ := a.Meta()
		mb, _ := b.Meta()
		if ma.Title != mb.Title || ma.Model != mb.Model || ma.Project != mb.Project || !ma.Created.Equal(mb.Created) {
			t.Errorf("%s: meta %+v here, %+v in the file engine", name, mb, ma)
		}
		va, _ := a.ViewID("")
		vb, err := b.ViewID("")
		if err != nil {
			t.Fatal(err)
		}
		if va.Len() != vb.Len() || va.Visible() != vb.Visible() || va.Turns() != vb.Turns() {
			t.Errorf("%s: %d messages, %d visible, %d turns here; %d, %d, %d in the file engine",
				name, vb.Len(), vb.Visible(), vb.Turns(), va.Len(), va.Visible(), va.Turns())
			continue
		}
		ra, _ := va.Read(0, va.Len())
		rb, _ := vb.Read(0, vb.Len())
		for i := range ra {
			if !sameMessage(ra[i].Raw, rb[i].Raw) || ra[i].Turn != rb[i].Turn || ra[i].TurnStart != rb[i].TurnStart ||
				vb.RawLen(i) != len(rb[i].Raw) {
				t.Errorf("%s: message %d differs (same %v, start %v %v):\n%s (turn %d)\n%s (turn %d)", name, i, sameMessage(ra[i].Raw, rb[i].Raw), rb[i].TurnStart, ra[i].TurnStart, rb[i].Raw, rb[i].Turn, ra[i].Raw, ra[i].Turn)
				break
			}
		}
	}

	for _, q := range []string{"test", "file", "error OR fail*", `"the file"`, "commit -test", "json", "é", "hook", "go test"} {
		for _, all := range []bool{false, true} {
			where := func(f backing.Finder) []string {
				hits, err := f.Search(backing.Query{Text: q, AllBranches: all})
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, h := range hits {
					out = append(out, fmt.Sprintf("%s/%s/t%d/m%d %s", h.Name, h.BranchName, h.Turn, h.Message, h.Role))
				}
				slices.Sort(out)
				return out
			}
			if a, b := where(fs), where(pg); !slices.Equal(a, b) {
				t.Errorf("Search(%q): %d hits here, %d in the file engine\n%s", q, len(b), len(a), diff(a, b))
			}
		}
	}
}

// sameMessage reports whether a and b are the same message but for the
// "id" and "ts" each store generated for it: every other byte the same.
func sameMessage(a, b []byte) bool {
	for _, key := range []string{"id", "ts"} {
		if x, y := field(a, key), field(b, key); x != y {
			a, b = bytes.Replace(a, []byte(x), []byte(`"X"`), 1), bytes.Replace(b, []byte(y), []byte(`"X"`), 1)
		}
	}
	return bytes.Equal(a, b)
}

// field is the string value of key in a stored message, quoted.
func field(raw []byte, key string) string {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	return string(m[key])
}

// diff lists what is in one list and not in the other.
func diff(fileEngine, here []string) string {
	var b bytes.Buffer
	for _, s := range fileEngine {
		if !slices.Contains(here, s) {
			fmt.Fprintf(&b, "  only in the file engine: %s\n", s)
		}
	}
	for _, s := range here {
		if !slices.Contains(fileEngine, s) {
			fmt.Fprintf(&b, "  only here: %s\n", s)
		}
	}
	return b.String()
}
