package fsnode

import (
	"encoding/json"
	"slices"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// compaction.json is in the session folder and every branch folder: a
// read-only JSON array of exact size, [] for a branch with no compaction;
// a compacted branch's shows its compaction, its time the file's; an
// imported compaction appended later shows at the next stat.
func TestCompactionFile(t *testing.T) {
	st := newStore(t)
	s, ids := forkedSession(t, st) // main m1 m2 m3; x after m2: x1 x2
	k := newKernel(t, st, Options{})
	read := func(path string) []backing.Compaction {
		t.Helper()
		data := k.catFile(path, 5) // small reads
		a, errno := k.stat(path)
		if errno != 0 || a.Size != uint64(len(data)) || a.Mode&0o222 != 0 {
			t.Errorf("stat %s: size %d mode %o (%v); read %d bytes", path, a.Size, a.Mode, errno, len(data))
		}
		var cs []backing.Compaction
		if err := json.Unmarshal(data, &cs); err != nil || cs == nil {
			t.Fatalf("%s: %v: %q", path, err, data)
		}
		return cs
	}
	for _, p := range []string{"s/compaction.json", "s/branches/main/compaction.json", "s/branches/x/compaction.json"} {
		if data := k.catFile(p, 100); string(data) != "[]\n" {
			t.Errorf("%s = %q, want []", p, data)
		}
		read(p)
	}
	if !slices.Contains(k.ls("s"), "compaction.json") || !slices.Contains(k.ls("s/branches/x"), "compaction.json") {
		t.Error("compaction.json is not listed in the session and branch folders")
	}

	c, err := backing.Compact(s, ids["x"], backing.CompactOptions{Summary: "m1, m2, x1 and x2", Model: "summ"})
	if err != nil {
		t.Fatal(err)
	}
	path := "s/branches/" + c.Branch.Name + "/compaction.json"
	cs := read(path)
	if len(cs) != 1 || cs[0].Kind != "sessfs" || cs[0].Summary != "m1, m2, x1 and x2" || cs[0].BoundaryTurn != 4 ||
		cs[0].FromBranch != "x" || cs[0].FromBranchID != ids["x"] || cs[0].Model != "summ" || cs[0].Turn != 1 {
		t.Errorf("%s: %+v", path, cs)
	}
	if a, _ := k.stat(path); a.Mtime != uint64(cs[0].Time.Unix()) {
		t.Errorf("%s: mtime %d, want the compaction's %v", path, a.Mtime, cs[0].Time)
	}
	if cs := read("s/branches/x/compaction.json"); len(cs) != 0 {
		t.Errorf("the branch compacted shows %+v", cs)
	}

	// An imported compaction appended to main: read where it stands.
	if err := s.AppendID(ids["main"], [][]byte{[]byte(`{"role":"system","content":"done so far","context":"compaction","source_seq":9,"source":{"type":"compacted"}}`)}); err != nil {
		t.Fatal(err)
	}
	if cs := read("s/compaction.json"); len(cs) != 1 || cs[0].Kind != "imported" || cs[0].Index != 3 || cs[0].Summary != "done so far" {
		t.Errorf("s/compaction.json after an imported compaction: %+v", cs)
	}

	if _, errno := k.open("s/compaction.json", syscall.O_WRONLY); errno != syscall.EACCES {
		t.Errorf("open compaction.json for writing: %v, want EACCES", errno)
	}
	if errno := k.unlink("s/branches/x/compaction.json"); errno != syscall.EPERM {
		t.Errorf("unlink compaction.json: %v, want EPERM", errno)
	}
}
