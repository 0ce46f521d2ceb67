package fsnode

import (
	"context"
	"slices"
	"strings"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// groupDir is a folder of the views by-project/ and by-tag/, which group
// the active sessions: by project (backing.ProjectOf) and by each tag of
// meta.json. A group is a path of folder names (backing.GroupPath), so
// project owner/repo is the folder by-project/owner/repo/, and the view
// is a tree: a folder holds a link (sessionLink) to each session of its
// group, named by the session's name, and a folder for each group below
// it. Should a session's name be that of a folder beside it, the link
// is shown and the folder is not: a lookup of a name asks the session
// first, which costs one meta.json, where a folder costs the catalog.
//
// A listing is one call of the catalog (backing.CatalogOf) for the
// folder's group, made when an open of the folder is first read
// (viewHandle, which also answers the kernel's lookups of what it
// listed); nothing is built at mount time, nothing kept after. Outside a
// listing, a link's lookup reads its session alone, a folder's calls the
// catalog of its group.
type groupDir struct {
	base
	refusing
	by   *grouping
	path string // the folder's group, "" for the view itself
}

var (
	_ = (fs.NodeLookuper)((*groupDir)(nil))
	_ = (fs.NodeOpendirHandler)((*groupDir)(nil))
	_ = (fs.NodeReaddirer)((*groupDir)(nil))
	_ = (fs.NodeGetattrer)((*groupDir)(nil))
)

// grouping is what makes a view of groups: its inode kinds, the groups a
// session is in, and the catalog of a group's sessions and those below.
type grouping struct {
	dirKind, linkKind int
	groups            func(backing.Entry) []string
	query             func(group string) backing.CatalogQuery
}

var (
	byProject = &grouping{kindByProject, kindProjectLink, func(e backing.Entry) []string {
		return []string{backing.GroupPath(e.Project)}
	}, func(g string) backing.CatalogQuery { return backing.CatalogQuery{Project: g} }}
	byTag = &grouping{kindByTag, kindTagLink, func(e backing.Entry) []string {
		var out []string
		for _, t := range e.Tags {
			if g := backing.GroupPath(t); g != "" && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
		return out
	}, func(g string) backing.CatalogQuery { return backing.CatalogQuery{Tag: g} }}
)

// groupNode is the folder of group path in view by.
func (f *FS) groupNode(ctx context.Context, parent *fs.Inode, name string, by *grouping, path string) *fs.Inode {
	return child(ctx, parent, name, &groupDir{base: base{fsys: f}, by: by, path: path}, syscall.S_IFDIR, by.dirIno(path))
}

func (by *grouping) dirIno(path string) uint64 {
	if path == "" {
		return ino(by.dirKind)
	}
	return ino(by.dirKind, path)
}

func (n *groupDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

// sub is the group of the folder name in this one.
func (n *groupDir) sub(name string) string {
	if n.path == "" {
		return name
	}
	return n.path + "/" + name
}

// below is the name of the folder in this one that leads to group g, if
// g is below this folder's group.
func (n *groupDir) below(g string) (string, bool) {
	rest := g
	if n.path != "" {
		var ok bool
		if rest, ok = strings.CutPrefix(g, n.path+"/"); !ok {
			return "", false
		}
	}
	name, _, _ := strings.Cut(rest, "/")
	return name, rest != ""
}

// depth is how many folders below the mount's root this folder's links
// are: the view's own folder, and one a component of the group.
func (n *groupDir) depth() int {
	if n.path == "" {
		return 1
	}
	return 2 + strings.Count(n.path, "/")
}

func (n *groupDir) listing() ([]viewEntry, syscall.Errno) {
	// The active sessions of this group and those below it; the view's
	// own folder, group "", asks for every active session.
	es, err := backing.CatalogOf(n.fsys.st, n.by.query(n.path))
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	var links, dirs []viewEntry
	linked, seen := map[string]bool{}, map[string]bool{}
	for _, e := range es {
		if e.Name == "" { // unreadable
			continue
		}
		for _, g := range n.by.groups(e) {
			if g == n.path {
				linked[e.Name] = true
				links = append(links, viewEntry{DirEntry: entry(e.Name, syscall.S_IFLNK, ino(n.by.linkKind, n.path, e.ID, e.Name)),
					id: e.ID, target: linkTarget(e.Name, n.depth()), mtime: e.LastActivity})
			} else if name, ok := n.below(g); ok && !seen[name] {
				seen[name] = true
				sub := n.sub(name)
				dirs = append(dirs, viewEntry{DirEntry: entry(name, syscall.S_IFDIR, n.by.dirIno(sub)), group: n.by, path: sub})
			}
		}
	}
	for _, d := range dirs {
		if !linked[d.Name] { // the link wins: see groupDir
			links = append(links, d)
		}
	}
	return links, 0
}

func (n *groupDir) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return n.fsys.openView(&n.Inode, n.listing)
}

func (n *groupDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	return viewStream(n.listing())
}

func (n *groupDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if s, ok := n.member(name); ok {
		in := n.fsys.linkNode(ctx, &n.Inode, name, s.ID(), linkTarget(name, n.depth()), ino(n.by.linkKind, n.path, s.ID(), name))
		return in, lookupAttr(ctx, in, out)
	}
	sub := n.sub(name)
	es, err := backing.CatalogOf(n.fsys.st, n.by.query(sub))
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	if len(es) == 0 {
		return nil, syscall.ENOENT
	}
	in := n.fsys.groupNode(ctx, &n.Inode, name, n.by, sub)
	return in, lookupAttr(ctx, in, out)
}

// member is the active session named name, if it is in this folder's
// group: what its meta says now, by the rule the catalog applies.
func (n *groupDir) member(name string) (backing.Session, bool) {
	if n.path == "" { // no session is in the group ""
		return nil, false
	}
	s, state, err := n.fsys.st.Lookup(name)
	if err != nil || state != backing.StateActive {
		return nil, false
	}
	m, err := s.Meta()
	if err != nil {
		return nil, false
	}
	e := backing.Entry{Project: backing.ProjectOf(m), Tags: m.Tags}
	return s, slices.Contains(n.by.groups(e), n.path)
}
