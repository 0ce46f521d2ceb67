package fsnode

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// queryDir is MOUNT/search/<query>/: the hits of query, best first, as
// symbolic links to their turn folders (HitPath), named so that ls keeps
// the order: "01 <session> · turn 3", "02 <session> · branch x · turn 1",
// "03 <session> · title". Hits in one turn are one link, at the rank of
// the best. `cd`, `cat` and `less` on a link reach the turn.
type queryDir struct {
	base
	refusing
	finder backing.Finder
	query  string

	mu   sync.Mutex
	at   time.Time // when links was read
	hits []queryHit
}

// queryHit is one link of a query's folder.
type queryHit struct {
	name, target string
	mtime        time.Time
	ino          uint64
}

var (
	_ = (fs.NodeLookuper)((*queryDir)(nil))
	_ = (fs.NodeReaddirer)((*queryDir)(nil))
	_ = (fs.NodeGetattrer)((*queryDir)(nil))
)

// maxQueryHits is how many links a query's folder lists; sessfs search -n
// gives more.
const maxQueryHits = 200

// queryFresh is how long a query's hits are kept: a readdir and the
// lookups that follow it (ls -l, find) see one list; later, the store's
// changes show.
const queryFresh = time.Second

func (n *queryDir) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fsys.dirAttr(out, n.fsys.storeTime())
	return 0
}

func (n *queryDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	hits, errno := n.links(true)
	if errno != 0 {
		return nil, errno
	}
	out := make([]fuse.DirEntry, 0, len(hits))
	for _, h := range hits {
		out = append(out, entry(h.name, syscall.S_IFLNK, h.ino))
	}
	return fs.NewListDirStream(out), 0
}

func (n *queryDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	hits, errno := n.links(false)
	if errno != 0 {
		return nil, errno
	}
	for _, h := range hits {
		if h.name == name {
			link := &viewLink{base: base{fsys: n.fsys}, target: h.target, mtime: h.mtime}
			in := child(ctx, &n.Inode, name, link, syscall.S_IFLNK, h.ino)
			return in, lookupAttr(ctx, in, out)
		}
	}
	return nil, syscall.ENOENT
}

// links runs the query, or, unless fresh is asked for, takes the hits of
// the last run when it is recent.
func (n *queryDir) links(fresh bool) ([]queryHit, syscall.Errno) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !fresh && n.hits != nil && time.Since(n.at) < queryFresh {
		return n.hits, 0
	}
	// Hits are grouped by turn: ask for more than are shown.
	found, err := n.finder.Search(backing.Query{Text: n.query, Limit: 4 * maxQueryHits})
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	n.hits, n.at = hitLinks(n.query, found), time.Now()
	return n.hits, 0
}

// hitLinks names the links of hits, one a target, best first.
func hitLinks(query string, found []backing.Hit) []queryHit {
	seen := map[string]bool{}
	var kept []backing.Hit
	for _, h := range found {
		p := HitPath(h)
		if !seen[p] && len(kept) < maxQueryHits {
			seen[p] = true
			kept = append(kept, h)
		}
	}
	width := max(2, len(fmt.Sprint(len(kept))))
	out := make([]queryHit, 0, len(kept))
	for i, h := range kept {
		name := fmt.Sprintf("%0*d %s", width, i+1, strings.Join(HitPlace(h), " · "))
		if len(name) > backing.MaxNameLen {
			name = truncateName(name, backing.MaxNameLen)
		}
		out = append(out, queryHit{
			name:   name,
			target: path.Join("..", "..", HitPath(h)),
			mtime:  h.Time,
			ino:    ino(kindHitLink, query, HitPath(h)),
		})
	}
	return out
}

// truncateName cuts a name to n bytes on a rune boundary.
func truncateName(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}
