package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// viewFileSnapshots: file snapshots (backing.Snapshots, read from Typed)
// keep their content byte for byte, binary too, the first of a turn and
// path stands, an append refuses a line that breaks the shape, and a fork
// has those before its fork point.
func viewFileSnapshots(t *testing.T, st backing.Store) {
	s := newSession(t, st, "s")
	snap := func(path string, turn int, content string) []byte {
		line, err := backing.SnapshotEvent(path, turn, []byte(content), content != "", 0o644)
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	appendOK(t, s, "", msg("user", "q1"), snap("/p/a", 1, "a\x00\xff"), snap("/p/a", 1, "again"), snap("/p/new", 1, ""))
	bad := []byte(`{"role":"event","content":"","event":"file_snapshot","data":{"path":"/p/b","turn":1,"exists":true,"content":"x","size":9}}`)
	wantErr(t, "a snapshot whose size is not its content's", s.AppendID("", [][]byte{bad}), backing.ErrInvalid)
	x := fork(t, s, "", backing.Head, "x")
	appendOK(t, s, "", msg("user", "q2"), snap("/p/a", 2, "a2"))
	got := func(id string) []string {
		t.Helper()
		v := view(t, s, id)
		all, err := backing.Snapshots(v, backing.Meta{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sn := range all {
			c, err := backing.SnapshotContent(v, sn)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d %s %t %q", sn.Turn, sn.Path, sn.Exists, c))
		}
		return out
	}
	want := []string{`1 /p/a true "a\x00\xff"`, `1 /p/new false ""`, `2 /p/a true "a2"`}
	if g := got(""); !slices.Equal(g, want) {
		t.Errorf("snapshots = %q, want %q", g, want)
	}
	if g := got(x.ID); !slices.Equal(g, want[:2]) {
		t.Errorf("the fork's snapshots = %q, want %q", g, want[:2])
	}
}
