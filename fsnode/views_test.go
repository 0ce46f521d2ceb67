package fsnode

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// viewSession makes a session with meta m, one message, last active at.
func viewSession(t *testing.T, st backing.Store, name string, m backing.Meta, at time.Time) backing.Session {
	t.Helper()
	m.Created = at.Add(-time.Minute) // kept, as for an import
	s, _, err := st.Create(name, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	b, err := s.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Backdate(b.ID, at); err != nil {
		t.Fatal(err)
	}
	return s
}

// dirents is a folder's listing as its node gives it, inode numbers and
// types too.
func (k *kernel) dirents(path string) []fuse.DirEntry {
	k.t.Helper()
	if _, errno := k.lookup(path); errno != 0 {
		k.t.Fatalf("lookup %s: %v", path, errno)
	}
	ds, errno := k.inode(path).Operations().(fs.NodeReaddirer).Readdir(&fuse.Context{Caller: k.caller()})
	if errno != 0 {
		k.t.Fatalf("readdir %s: %v", path, errno)
	}
	defer ds.Close()
	var out []fuse.DirEntry
	for ds.HasNext() {
		e, errno := ds.Next()
		if errno != 0 {
			k.t.Fatalf("readdir %s: %v", path, errno)
		}
		out = append(out, e)
	}
	return out
}

func (k *kernel) ls(path string) []string {
	k.t.Helper()
	names, errno := k.readdir(path)
	if errno != 0 {
		k.t.Fatalf("readdir %s: %v", path, errno)
	}
	return names
}

// follows checks that each entry of dir is a link whose lookup gives the
// inode number of the listing (d_ino = st_ino), and whose target, taken
// from dir, is the folder of session want[name] (by inode number), and
// that nothing else is listed.
func (k *kernel) follows(dir string, want map[string]string) {
	k.t.Helper()
	got := map[string]string{}
	for _, e := range k.dirents(dir) {
		p := dir + "/" + e.Name
		a, errno := k.stat(p)
		if errno != 0 {
			k.t.Errorf("stat %s: %v", p, errno)
			continue
		}
		if a.Ino != e.Ino || a.Mode&syscall.S_IFMT != e.Mode&syscall.S_IFMT {
			k.t.Errorf("%s: listed as ino %d mode %o, stat says ino %d mode %o", p, e.Ino, e.Mode, a.Ino, a.Mode)
		}
		if e.Mode&syscall.S_IFMT != syscall.S_IFLNK {
			got[e.Name] = "(folder)"
			continue
		}
		target, errno := k.readlink(p)
		if errno != 0 {
			k.t.Errorf("readlink %s: %v", p, errno)
			continue
		}
		got[e.Name] = resolve(dir, target)
	}
	if !mapsEqual(got, want) {
		k.t.Errorf("%s: links %v, want %v", dir, got, want)
	}
}

// resolve is the path a relative link target in dir leads to.
func resolve(dir, target string) string {
	parts := strings.Split(dir, "/")
	for _, c := range strings.Split(target, "/") {
		if c == ".." {
			if len(parts) == 0 {
				return "(above the mount)"
			}
			parts = parts[:len(parts)-1]
		} else {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, "/")
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

func TestRootListsViews(t *testing.T) {
	st := newStore(t)
	viewSession(t, st, "s", backing.Meta{}, time.Now())
	k := newKernel(t, st, Options{})
	if got, want := k.ls(""), []string{"archive", "trash", "recent", "by-project", "by-tag", "search", "s"}; !slices.Equal(got, want) {
		t.Errorf("ls MOUNT = %q, want %q", got, want)
	}
	for _, v := range []string{"recent", "by-project", "by-tag", "search"} {
		a, errno := k.stat(v)
		if errno != 0 || a.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			t.Errorf("stat %s: %v, mode %o", v, errno, a.Mode)
		}
		if errno := k.mkdir(v); errno != syscall.EEXIST {
			t.Errorf("mkdir %s: %v, want EEXIST", v, errno)
		}
		if errno := k.rmdir(v); errno != syscall.EBUSY {
			t.Errorf("rmdir %s: %v, want EBUSY", v, errno)
		}
		if errno := k.rename(v, "x", 0); errno != syscall.EPERM {
			t.Errorf("mv %s x: %v, want EPERM", v, errno)
		}
		if errno := k.rename("s", v, 0); errno != syscall.EEXIST {
			t.Errorf("mv s %s: %v, want EEXIST", v, errno)
		}
	}
	for _, name := range []string{"tmp"} { // reserved, a folder to come
		if _, errno := k.lookup(name); errno != syscall.ENOENT {
			t.Errorf("lookup %s: %v, want ENOENT", name, errno)
		}
	}
}

// recent/ lists every active session newest first, ranked so ls keeps
// the order; a lookup goes by the name after the rank, which may be stale;
// an append or a rename is seen at the next listing.
func TestRecent(t *testing.T) {
	st := newStore(t)
	t0 := time.Now().Add(-24 * time.Hour)
	var ss []backing.Session
	for i, name := range []string{"s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "s09", "s10", "s11"} {
		ss = append(ss, viewSession(t, st, name, backing.Meta{}, t0.Add(time.Duration(i)*time.Minute)))
	}
	viewSession(t, st, "shelved", backing.Meta{}, t0.Add(time.Hour))
	if err := st.Archive("shelved"); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, st, Options{})

	want := []string{"01 s11", "02 s10", "03 s09", "04 s08", "05 s07", "06 s06", "07 s05", "08 s04", "09 s03", "10 s02", "11 s01"}
	if got := k.ls("recent"); !slices.Equal(got, want) {
		t.Fatalf("ls recent = %q, want %q", got, want)
	}
	if !slices.IsSorted(want) {
		t.Fatal("the ranks do not sort as ls sorts")
	}
	links := map[string]string{}
	for _, w := range want {
		links[w] = w[3:]
	}
	k.follows("recent", links)
	if target, _ := k.readlink("recent/03 s09"); target != "../s09" {
		t.Errorf("readlink recent/03 s09 = %q", target)
	}
	a, _ := k.stat("recent/11 s01")
	if got := time.Unix(int64(a.Mtime), int64(a.Mtimensec)); got.Sub(t0).Abs() > time.Millisecond {
		t.Errorf("mtime of the link of s01: %v, want its last activity %v", got, t0)
	}

	// An append makes s03 the newest; a rename renames its entry.
	if err := ss[2].AppendID("", [][]byte{[]byte(`{"role":"user","content":"again"}`)}); err != nil {
		t.Fatal(err)
	}
	if got := k.ls("recent")[0]; got != "01 s03" {
		t.Errorf("after an append to s03, recent starts with %q", got)
	}
	// The rank listed before still leads to the session.
	if target, errno := k.readlink("recent/09 s03"); errno != 0 || target != "../s03" {
		t.Errorf("readlink of a stale rank: %q, %v", target, errno)
	}
	if err := st.Rename("s03", "renamed"); err != nil {
		t.Fatal(err)
	}
	if got := k.ls("recent")[0]; got != "01 renamed" {
		t.Errorf("after a rename, recent starts with %q", got)
	}
	for _, gone := range []string{"01 s03", "01 shelved", "s01", "x s01", " s01", "01s01", "01 ", "01 nosuch"} {
		if _, errno := k.lookup("recent/" + gone); errno != syscall.ENOENT {
			t.Errorf("lookup recent/%s: %v, want ENOENT", gone, errno)
		}
	}
	if err := st.Trash("s05"); err != nil {
		t.Fatal(err)
	}
	if got := k.ls("recent"); len(got) != 10 || slices.ContainsFunc(got, func(n string) bool { return strings.HasSuffix(n, " s05") }) {
		t.Errorf("ls recent after a trash: %q", got)
	}
	if _, errno := k.lookup("recent/07 s05"); errno != syscall.ENOENT {
		t.Errorf("lookup of a trashed session in recent: %v", errno)
	}
	refusesChanges(t, k, "recent", "01 renamed")
}

// refusesChanges checks that a view folder and its entry take no change.
func refusesChanges(t *testing.T, k *kernel, dir, entry string) {
	t.Helper()
	if errno := k.unlink(dir + "/" + entry); errno != syscall.EPERM {
		t.Errorf("unlink %s/%s: %v, want EPERM", dir, entry, errno)
	}
	if errno := k.mkdir(dir + "/new"); errno != syscall.EPERM {
		t.Errorf("mkdir in %s: %v, want EPERM", dir, errno)
	}
	if errno := k.symlink("../x", dir+"/new"); errno != syscall.EPERM {
		t.Errorf("symlink in %s: %v, want EPERM", dir, errno)
	}
	if _, errno := k.create(dir+"/new", syscall.O_WRONLY); errno != syscall.EPERM {
		t.Errorf("create in %s: %v, want EPERM", dir, errno)
	}
	if errno := k.rename(dir+"/"+entry, dir+"/other", 0); errno != syscall.EPERM {
		t.Errorf("mv in %s: %v, want EPERM", dir, errno)
	}
	in := fuse.SetAttrIn{SetAttrInCommon: fuse.SetAttrInCommon{Valid: fuse.FATTR_MTIME}}
	if _, errno := k.setattr(dir+"/"+entry, 0, in); errno != syscall.EPERM {
		t.Errorf("touch -h %s/%s: %v, want EPERM", dir, entry, errno)
	}
	ro := newKernel(t, k.st, Options{ReadOnly: true})
	if _, errno := ro.setattr(dir+"/"+entry, 0, in); errno != syscall.EROFS {
		t.Errorf("touch -h %s/%s on a read-only mount: %v, want EROFS", dir, entry, errno)
	}
}

func remote(url string) map[string]json.RawMessage {
	raw, _ := json.Marshal(url)
	return map[string]json.RawMessage{backing.RemoteKey: raw}
}

// by-project/ is a tree of the projects' paths, each folder holding a
// link to each of its sessions, by relative paths that lead to them.
func TestByProject(t *testing.T) {
	st := newStore(t)
	now := time.Now()
	viewSession(t, st, "a", backing.Meta{Cwd: "/home/u/one", Extra: remote("git@github.com:owner/repo.git")}, now)
	viewSession(t, st, "b", backing.Meta{Cwd: "/elsewhere/two", Extra: remote("https://github.com/owner/repo")}, now)
	viewSession(t, st, "c", backing.Meta{Cwd: "/home/u/work/app"}, now)
	viewSession(t, st, "d", backing.Meta{Cwd: "/tmp"}, now)
	viewSession(t, st, "e", backing.Meta{Cwd: "/tmp/x"}, now)
	viewSession(t, st, "f", backing.Meta{}, now)
	viewSession(t, st, "g", backing.Meta{Project: "owner"}, now)
	viewSession(t, st, "shelved", backing.Meta{Project: "shelf"}, now)
	if err := st.Archive("shelved"); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, st, Options{})

	if got, want := sorted(k.ls("by-project")), []string{"(none)", "owner", "tmp", "work"}; !slices.Equal(got, want) {
		t.Fatalf("ls by-project = %q, want %q", got, want)
	}
	k.follows("by-project", map[string]string{"(none)": "(folder)", "owner": "(folder)", "tmp": "(folder)", "work": "(folder)"})
	k.follows("by-project/owner", map[string]string{"repo": "(folder)", "g": "g"})
	k.follows("by-project/owner/repo", map[string]string{"a": "a", "b": "b"})
	k.follows("by-project/work/app", map[string]string{"c": "c"})
	k.follows("by-project/tmp", map[string]string{"d": "d", "x": "(folder)"})
	k.follows("by-project/tmp/x", map[string]string{"e": "e"})
	k.follows("by-project/(none)", map[string]string{"f": "f"})
	if target, _ := k.readlink("by-project/owner/repo/a"); target != "../../../a" {
		t.Errorf("readlink by-project/owner/repo/a = %q", target)
	}
	for _, p := range []string{"by-project/shelf", "by-project/owner/nosuch", "by-project/owner/repo/c", "by-project/owner/re", "by-project/work/app/a", "by-project/owner/repo/shelved"} {
		if _, errno := k.lookup(p); errno != syscall.ENOENT {
			t.Errorf("lookup %s: %v, want ENOENT", p, errno)
		}
	}

	// The views follow the store: a session given a project moves, one
	// renamed is listed by its new name.
	s, err := st.Session("c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.EditMeta([]byte(`{"id":"` + s.ID() + `","project":"owner/repo","cwd":"/home/u/work/app"}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.Rename("a", "a2"); err != nil {
		t.Fatal(err)
	}
	k.follows("by-project/owner/repo", map[string]string{"a2": "a2", "b": "b", "c": "c"})
	if _, errno := k.lookup("by-project/work"); errno != syscall.ENOENT {
		t.Errorf("lookup of a project with no session left: %v, want ENOENT", errno)
	}
	refusesChanges(t, k, "by-project/owner/repo", "b")
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// by-tag/ is the same tree of the sessions' tags; a tag with '/' nests.
// A session named as a folder beside it is shown, the folder not.
func TestByTag(t *testing.T) {
	st := newStore(t)
	now := time.Now()
	viewSession(t, st, "a", backing.Meta{Tags: []string{"bug", "ui/dark"}}, now)
	viewSession(t, st, "b", backing.Meta{Tags: []string{"bug", "bug", " "}}, now)
	viewSession(t, st, "dark", backing.Meta{Tags: []string{"ui"}}, now)
	viewSession(t, st, "none", backing.Meta{}, now)
	k := newKernel(t, st, Options{})
	if got, want := sorted(k.ls("by-tag")), []string{"bug", "ui"}; !slices.Equal(got, want) {
		t.Fatalf("ls by-tag = %q, want %q", got, want)
	}
	k.follows("by-tag/bug", map[string]string{"a": "a", "b": "b"})
	k.follows("by-tag/ui", map[string]string{"dark": "dark"}) // the session hides the folder ui/dark
	if target, _ := k.readlink("by-tag/ui/dark"); target != "../../dark" {
		t.Errorf("readlink by-tag/ui/dark = %q", target)
	}
	if err := st.Rename("dark", "light"); err != nil {
		t.Fatal(err)
	}
	k.follows("by-tag/ui", map[string]string{"light": "light", "dark": "(folder)"})
	k.follows("by-tag/ui/dark", map[string]string{"a": "a"})
	if target, _ := k.readlink("by-tag/ui/dark/a"); target != "../../../a" {
		t.Errorf("readlink by-tag/ui/dark/a = %q", target)
	}
}

// Inode numbers of the views hash immutable things: the same across
// mounts, and apart between views.
func TestViewInodes(t *testing.T) {
	st := newStore(t)
	viewSession(t, st, "a", backing.Meta{Project: "p", Tags: []string{"p"}}, time.Now())
	inos := func() []uint64 {
		k := newKernel(t, st, Options{})
		var out []uint64
		for _, p := range []string{"recent", "recent/1 a", "by-project", "by-project/p", "by-project/p/a", "by-tag", "by-tag/p", "by-tag/p/a", "a"} {
			a, errno := k.stat(p)
			if errno != 0 {
				t.Fatalf("stat %s: %v", p, errno)
			}
			out = append(out, a.Ino)
		}
		return out
	}
	first, second := inos(), inos()
	if !slices.Equal(first, second) {
		t.Errorf("inode numbers differ between mounts: %v and %v", first, second)
	}
	if len(slices.Compact(sortedInos(first))) != len(first) {
		t.Errorf("two paths share an inode number: %v", first)
	}
}

func sortedInos(s []uint64) []uint64 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// countingStore counts the listings of the store: a catalog call without
// an index is one List.
type countingStore struct {
	backing.Store
	lists atomic.Int32
}

func (c *countingStore) List(all bool) ([]backing.SessionInfo, error) {
	c.lists.Add(1)
	return c.Store.List(all)
}

// An open view folder lists from one catalog call and answers the
// lookups of what it listed (READDIRPLUS) from it, with the attributes a
// lookup through the store gives.
func TestViewHandle(t *testing.T) {
	st := &countingStore{Store: newStore(t)}
	t0 := time.Now().Add(-time.Hour)
	for i, p := range []string{"o/a", "o/a", "o/b", "p/c", "q"} {
		viewSession(t, st, fmt.Sprintf("s%d", i), backing.Meta{Project: p}, t0.Add(time.Duration(i)*time.Minute))
	}
	k := newKernel(t, st, Options{})
	for _, dir := range []string{"recent", "by-project", "by-project/o", "by-project/o/a"} {
		k.node(dir)
		st.lists.Store(0)
		h, _, errno := k.inode(dir).Operations().(fs.NodeOpendirHandler).OpendirHandle(owner, 0)
		if errno != 0 {
			t.Fatalf("opendir %s: %v", dir, errno)
		}
		vh := h.(*viewHandle)
		var names []string
		for {
			e, errno := vh.Readdirent(owner)
			if errno != 0 {
				t.Fatalf("readdir %s: %v", dir, errno)
			}
			if e == nil {
				break
			}
			names = append(names, e.Name)
			var out fuse.EntryOut
			in, errno := vh.Lookup(owner, e.Name, &out)
			if errno != 0 || in.StableAttr().Ino != e.Ino || out.Attr.Ino != 0 && out.Attr.Ino != e.Ino {
				t.Errorf("%s/%s: lookup of a listed entry: %v, ino %d, listed %d", dir, e.Name, errno, in.StableAttr().Ino, e.Ino)
				continue
			}
			// What the listing told is what the node says.
			var a fuse.AttrOut
			if errno := in.Operations().(fs.NodeGetattrer).Getattr(owner, nil, &a); errno != 0 {
				t.Fatalf("getattr %s/%s: %v", dir, e.Name, errno)
			}
			if a.Mode != out.Attr.Mode || a.Size != out.Attr.Size || a.Mtime != out.Attr.Mtime || a.Mtimensec != out.Attr.Mtimensec {
				t.Errorf("%s/%s: listed attributes %+v, the node says %+v", dir, e.Name, out.Attr, a.Attr)
			}
		}
		if _, errno := vh.Lookup(owner, "nosuch", &fuse.EntryOut{}); errno != syscall.ENOENT {
			t.Errorf("%s: lookup of a name not listed: %v", dir, errno)
		}
		if n := st.lists.Load(); n != 1 {
			t.Errorf("%s: listing %d entries and looking each up took %d catalog calls, want 1", dir, len(names), n)
		}
		if got, want := sorted(names), sorted(k.ls(dir)); !slices.Equal(got, want) {
			t.Errorf("%s: the handle lists %q, Readdir %q", dir, got, want)
		}
		// A seek back lists again from the same listing.
		if errno := vh.Seekdir(owner, 0); errno != 0 {
			t.Fatal(errno)
		}
		if e, _ := vh.Readdirent(owner); e == nil || e.Name != names[0] {
			t.Errorf("%s: after a seek to 0: %v", dir, e)
		}
	}
}
