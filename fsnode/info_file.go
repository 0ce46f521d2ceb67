package fsnode

import (
	"context"
	"encoding/json"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// infoFile is branches/<name>/info.json: what a branch is, read-only.
type infoFile struct {
	base
	ref branchRef
}

var (
	_ = (fs.NodeGetattrer)((*infoFile)(nil))
	_ = (fs.NodeOpener)((*infoFile)(nil))
	_ = (fs.NodeReader)((*infoFile)(nil))
	_ = (fs.NodeSetattrer)((*infoFile)(nil))
)

type branchInfo struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Default  bool      `json:"default"`
	Parent   string    `json:"parent,omitempty"` // name
	ParentID string    `json:"parent_id,omitempty"`
	ForkedAt *int      `json:"forked_at,omitempty"` // visible messages inherited from the parent
	Messages int       `json:"messages"`
	Turns    int       `json:"turns"`
	Created  time.Time `json:"created"`
}

func (n *infoFile) doc() ([]byte, time.Time, error) {
	v, err := n.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	b := v.Branch()
	info := branchInfo{ID: b.ID, Name: b.Name, Default: b.IsDefault(), Messages: v.Visible(), Turns: v.Turns(), Created: b.Created}
	if !b.IsDefault() {
		k := v.VisibleBefore(v.Inherited())
		info.ForkedAt, info.ParentID = &k, b.Parent
		if p, err := n.ref.s.BranchByID(b.Parent); err == nil {
			info.Parent = p.Name
		}
	}
	data, err := json.MarshalIndent(info, "", "  ")
	mtime := v.ModTime()
	if mtime.Before(b.Created) {
		mtime = b.Created
	}
	return append(data, '\n'), mtime, err
}

func (n *infoFile) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	doc, mtime, err := n.doc()
	if err != nil {
		return n.fsys.toErrno(err)
	}
	n.fsys.attr(&out.Attr, fileMode|0o444, int64(len(doc)), mtime)
	return 0
}

func (n *infoFile) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if isWrite(flags) {
		return nil, 0, syscall.EACCES
	}
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

func (n *infoFile) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	doc, _, err := n.doc()
	if err != nil {
		return nil, n.fsys.toErrno(err)
	}
	return fuse.ReadResultData(slice(doc, off, len(dest))), 0
}

func (n *infoFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	return syscall.EPERM
}
