package fsnode

import (
	"slices"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"golang.org/x/sys/unix"

	"github.com/sessfs/sessfs/backing"
)

// state is where name is in the store: its state, or "" if nowhere.
func state(t *testing.T, st backing.Store, name string) string {
	t.Helper()
	_, state, err := st.Lookup(name)
	if err != nil {
		return ""
	}
	return state
}

func listed(t *testing.T, k *kernel, dir, name string) bool {
	t.Helper()
	names, errno := k.readdir(dir)
	if errno != 0 {
		t.Fatalf("readdir %q: %v", dir, errno)
	}
	return slices.Contains(names, name)
}

// mv in the root: a rename of a session (never over another, nor onto
// archive or trash), into archive/ and back, into trash/ and back under a
// new name. The session keeps its id, its inode number and its messages
// through all of it, and each folder lists it where it is.
func TestRenameRoot(t *testing.T) {
	st, s := richSession(t)
	if _, _, err := st.Create("other", backing.Meta{}); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, st, Options{})
	id := s.ID()
	ino := func(p string) uint64 {
		t.Helper()
		a, errno := k.stat(p)
		if errno != 0 {
			t.Fatalf("stat %s: %v", p, errno)
		}
		return a.Ino
	}
	want := ino("s")
	md := k.catFile("s/transcript.md", 1<<20)
	for _, c := range []struct {
		from, to string
		flags    uint32
		errno    syscall.Errno
	}{
		{"s", "other", 0, syscall.EEXIST},
		{"s", "archive", 0, syscall.EEXIST},
		{"s", "trash", 0, syscall.EEXIST},
		{"archive", "x", 0, syscall.EPERM},
		{"trash", "x", 0, syscall.EPERM},
		{"s", "other", fs.RENAME_EXCHANGE, syscall.EPERM},
		{"missing", "x", 0, syscall.ENOENT},
		{"s", ".hidden", 0, syscall.EINVAL},
		{"s", "archive/renamed", 0, syscall.EINVAL}, // archive under the same name, then rename
		{"s", "other/s", 0, syscall.EPERM},          // into another session's folder
	} {
		if errno := k.rename(c.from, c.to, c.flags); errno != c.errno {
			t.Errorf("mv %s %s (flags %#x): %v, want %v", c.from, c.to, c.flags, errno, c.errno)
		}
	}
	if state(t, st, "s") != backing.StateActive {
		t.Fatalf("s moved by a refused rename")
	}

	step := func(from, to string) {
		t.Helper()
		if errno := k.rename(from, to, 0); errno != 0 {
			t.Fatalf("mv %s %s: %v", from, to, errno)
		}
	}
	step("s", "renamed")
	if state(t, st, "s") != "" || state(t, st, "renamed") != backing.StateActive {
		t.Errorf("after mv s renamed: s %q, renamed %q", state(t, st, "s"), state(t, st, "renamed"))
	}
	if _, errno := k.lookup("s"); errno != syscall.ENOENT {
		t.Errorf("lookup of the old name: %v, want ENOENT", errno)
	}
	if ino("renamed") != want || !listed(t, k, "", "renamed") || listed(t, k, "", "s") {
		t.Errorf("renamed: another inode, or the listing is not updated")
	}
	if got := k.catFile("renamed/transcript.md", 1<<20); len(got) != len(md) {
		t.Errorf("renamed/transcript.md: %d bytes, want %d", len(got), len(md))
	}

	step("renamed", "archive/renamed")
	if state(t, st, "renamed") != backing.StateArchived {
		t.Errorf("after mv into archive/: state %q", state(t, st, "renamed"))
	}
	if _, errno := k.lookup("renamed"); errno != syscall.ENOENT {
		t.Errorf("an archived session in the root: %v, want ENOENT", errno)
	}
	if !listed(t, k, "archive", "renamed") || listed(t, k, "", "renamed") || ino("archive/renamed") != want {
		t.Errorf("archive/ does not list it, or the root still does")
	}
	if got := k.catFile("archive/renamed/transcript.md", 1<<20); len(got) != len(md) {
		t.Errorf("archive/renamed/transcript.md: %d bytes, want %d", len(got), len(md))
	}
	for _, c := range []struct {
		to    string
		flags uint32
		errno syscall.Errno
	}{
		{"elsewhere", 0, syscall.EPERM},     // out of archive only under its name
		{"trash/renamed", 0, syscall.EPERM}, // into the trash: rmdir
		{"renamed", fs.RENAME_EXCHANGE, syscall.EPERM},
	} {
		if errno := k.rename("archive/renamed", c.to, c.flags); errno != c.errno {
			t.Errorf("mv archive/renamed %s (flags %#x): %v, want %v", c.to, c.flags, errno, c.errno)
		}
	}
	step("archive/renamed", "renamed")
	if state(t, st, "renamed") != backing.StateActive || listed(t, k, "archive", "renamed") {
		t.Errorf("after mv out of archive/: state %q", state(t, st, "renamed"))
	}

	step("renamed", "trash/anything")
	entry := "renamed" + trashSep + id
	if state(t, st, "renamed") != "" || !listed(t, k, "trash", entry) || ino("trash/"+entry) != want {
		t.Errorf("after mv into trash/: state %q, trash/ lists %v", state(t, st, "renamed"), func() []string { n, _ := k.readdir("trash"); return n }())
	}
	// A session in the trash is read-only: nothing starts a change there.
	if _, errno := k.open("trash/"+entry+"/append", syscall.O_WRONLY); errno != syscall.EROFS {
		t.Errorf("open of append in the trash: %v, want EROFS", errno)
	}
	if _, errno := k.open("trash/"+entry+"/meta.json", syscall.O_WRONLY); errno != syscall.EROFS {
		t.Errorf("open of meta.json in the trash: %v, want EROFS", errno)
	}
	if errno := k.rename("trash/"+entry, "archive/x", 0); errno != syscall.EPERM {
		t.Errorf("mv from trash/ into archive/: %v, want EPERM", errno)
	}
	if errno := k.rename("trash/nothing~"+id+"x", "back", 0); errno != syscall.ENOENT {
		t.Errorf("mv of no trash entry: %v, want ENOENT", errno)
	}
	if errno := k.rename("trash/"+entry, "other", 0); errno != syscall.EEXIST {
		t.Errorf("restore over an existing session: %v, want EEXIST", errno)
	}
	step("trash/"+entry, "back")
	if state(t, st, "back") != backing.StateActive || listed(t, k, "trash", entry) || ino("back") != want {
		t.Errorf("after the restore: state %q", state(t, st, "back"))
	}
	if got := k.catFile("back/transcript.md", 1<<20); len(got) != len(md) {
		t.Errorf("back/transcript.md: %d bytes, want %d", len(got), len(md))
	}

	// rmdir: the root's moves a session to the trash, archive/'s too; the
	// views themselves are busy.
	if errno := k.rmdir("back"); errno != 0 || state(t, st, "back") != "" {
		t.Errorf("rmdir back: %v, state %q", errno, state(t, st, "back"))
	}
	step("other", "archive/other")
	if errno := k.rmdir("archive/other"); errno != 0 || state(t, st, "other") != "" {
		t.Errorf("rmdir archive/other: %v, state %q", errno, state(t, st, "other"))
	}
	for _, p := range []string{"archive", "trash"} {
		if errno := k.rmdir(p); errno != syscall.EBUSY {
			t.Errorf("rmdir %s: %v, want EBUSY", p, errno)
		}
	}
	if errno := k.rmdir("missing"); errno != syscall.ENOENT {
		t.Errorf("rmdir missing: %v, want ENOENT", errno)
	}
	if errno := k.rmdir("archive/missing"); errno != syscall.ENOENT {
		t.Errorf("rmdir archive/missing: %v, want ENOENT", errno)
	}
	if ids, _ := st.TrashedIDs(); len(ids) != 2 {
		t.Errorf("%d sessions in the trash, want 2", len(ids))
	}
}

// mkdir in the root creates a session; on archive, trash or an existing
// name it fails with EEXIST.
func TestMkdirRoot(t *testing.T) {
	st, _ := testSession(t)
	k := newKernel(t, st, Options{})
	if errno := k.mkdir("new"); errno != 0 || state(t, st, "new") != backing.StateActive {
		t.Fatalf("mkdir new: %v", errno)
	}
	if !listed(t, k, "", "new") || !listed(t, k, "new", "meta.json") || !listed(t, k, "new", "transcript.md") {
		t.Errorf("the new session is not listed whole")
	}
	for _, name := range []string{"new", "s", "archive", "trash"} {
		if errno := k.mkdir(name); errno != syscall.EEXIST {
			t.Errorf("mkdir %s: %v, want EEXIST", name, errno)
		}
	}
	if errno := k.mkdir(".dot"); errno != syscall.EINVAL {
		t.Errorf("mkdir .dot: %v, want EINVAL", errno)
	}
	for _, p := range []string{"archive/x", "trash/x", "s/x", "s/turns/x"} {
		if errno := k.mkdir(p); errno != syscall.EPERM {
			t.Errorf("mkdir %s: %v, want EPERM", p, errno)
		}
	}
}

// Every change in the root is refused on a read-only mount (EROFS) and for
// another user (EACCES), and changes nothing.
func TestRenameRootRefused(t *testing.T) {
	st, _ := testSession(t)
	ro := newKernel(t, st, Options{ReadOnly: true})
	other := newKernel(t, st, Options{})
	other.uid++
	for _, c := range []struct {
		k     *kernel
		errno syscall.Errno
	}{{ro, syscall.EROFS}, {other, syscall.EACCES}} {
		for what, errno := range map[string]syscall.Errno{
			"mv s t":          c.k.rename("s", "t", 0),
			"mv s archive/s":  c.k.rename("s", "archive/s", 0),
			"mv s trash/s":    c.k.rename("s", "trash/s", 0),
			"mkdir t":         c.k.mkdir("t"),
			"rmdir s":         c.k.rmdir("s"),
			"rmdir archive/s": c.k.rmdir("archive/s"),
		} {
			if errno != c.errno {
				t.Errorf("%s: %v, want %v", what, errno, c.errno)
			}
		}
	}
	if state(t, st, "s") != backing.StateActive || state(t, st, "t") != "" {
		t.Errorf("a refused change changed the store")
	}
	if err := st.Archive("s"); err != nil {
		t.Fatal(err)
	}
	if errno := ro.rename("archive/s", "s", 0); errno != syscall.EROFS {
		t.Errorf("unarchive on a read-only mount: %v, want EROFS", errno)
	}
	if err := st.Trash("s"); err != nil {
		t.Fatal(err)
	}
	ids, _ := st.TrashedIDs()
	if errno := other.rename("trash/s"+trashSep+ids[0], "s", 0); errno != syscall.EACCES {
		t.Errorf("restore by another user: %v, want EACCES", errno)
	}
	if errno := ro.rename("trash/s"+trashSep+ids[0], "s", unix.RENAME_NOREPLACE); errno != syscall.EROFS {
		t.Errorf("restore on a read-only mount: %v, want EROFS", errno)
	}
}

// Branches: mkdir forks the default branch, mv renames a branch (never
// out of branches/), rmdir removes one but the default.
func TestRenameBranch(t *testing.T) {
	st, s := richSession(t)
	k := newKernel(t, st, Options{})
	if errno := k.mkdir("s/branches/b2"); errno != 0 {
		t.Fatalf("mkdir branches/b2: %v", errno)
	}
	if errno := k.mkdir("s/turns/2/fork/b3"); errno != 0 {
		t.Fatalf("mkdir turns/2/fork/b3: %v", errno)
	}
	if errno := k.mkdir("s/branches/alt"); errno != syscall.EEXIST {
		t.Errorf("mkdir of an existing branch: %v, want EEXIST", errno)
	}
	for _, c := range []struct {
		from, to string
		errno    syscall.Errno
	}{
		{"s/branches/b2", "s/branches/alt", syscall.EEXIST},
		{"s/branches/b2", "s/b2", syscall.EPERM},
		{"s/branches/b2", "b2", syscall.EPERM},
		{"s/branches/nope", "s/branches/x", syscall.ENOENT},
		{"s/branches/b2", "s/branches/renamed", 0},
	} {
		if errno := k.rename(c.from, c.to, 0); errno != c.errno {
			t.Errorf("mv %s %s: %v, want %v", c.from, c.to, errno, c.errno)
		}
	}
	names, _ := k.readdir("s/branches")
	slices.Sort(names)
	if !slices.Equal(names, []string{"alt", "b3", "main", "renamed"}) {
		t.Errorf("branches/ lists %v", names)
	}
	v, _ := s.ViewID("")
	main := k.catFile("s/messages.jsonl", 1<<20)
	if got := k.catFile("s/branches/renamed/messages.jsonl", 1<<20); string(got) != string(main) {
		t.Errorf("a fork at the head reads %d bytes, the default branch %d (%d messages)", len(got), len(main), v.Len())
	}
	if errno := k.rmdir("s/branches/main"); errno != syscall.EBUSY {
		t.Errorf("rmdir of the default branch: %v, want EBUSY", errno)
	}
	if errno := k.rmdir("s/branches/renamed"); errno != 0 {
		t.Errorf("rmdir branches/renamed: %v", errno)
	}
	if _, errno := k.lookup("s/branches/renamed"); errno != syscall.ENOENT {
		t.Errorf("lookup of a removed branch: %v, want ENOENT", errno)
	}
}
