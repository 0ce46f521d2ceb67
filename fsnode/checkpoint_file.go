package fsnode

import (
	"context"
	"encoding/json"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/sessfs/sessfs/backing"
)

// checkpointFile is checkpoints/<name>: a read-only docFile of
// checkpointDoc whose time is the mark's, so setting it to now (touch,
// touch -m) marks the branch's head with the name again, as `sessfs
// checkpoint` does: the mark moves, its earlier line stays. Any other
// change, a time given (touch -d, cp -p) included, is EPERM; setting the
// access time alone changes nothing.
type checkpointFile struct {
	docFile
	mark checkpointDoc
}

var _ = (fs.NodeSetattrer)((*checkpointFile)(nil))

// markHandle is the handle of the create that made a checkpoint: it
// takes no byte.
type markHandle struct{}

var _ = (fs.FileWriter)(markHandle{})

func (markHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	return 0, syscall.EPERM
}

func (n *checkpointFile) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	const ignored = fuse.FATTR_FH | fuse.FATTR_LOCKOWNER | fuse.FATTR_CTIME
	const atimeNow = fuse.FATTR_ATIME | fuse.FATTR_ATIME_NOW
	const mtimeNow = fuse.FATTR_MTIME | fuse.FATTR_MTIME_NOW
	switch v := in.Valid &^ ignored; v {
	case atimeNow:
	case mtimeNow, mtimeNow | atimeNow:
		if errno := n.fsys.changeable(ctx, n.mark.ref.s); errno != 0 {
			return errno
		}
		if err := n.mark.markHead(); err != nil {
			return n.fsys.toErrno(err)
		}
	default:
		return syscall.EPERM
	}
	return n.Getattr(ctx, fh, out)
}

// checkpointDoc is checkpoints/<name>, a docFile: where the checkpoint
// stands, as backing.Checkpoint shows it in JSON (its line in
// messages.jsonl, the visible messages before it, its turn, id and time),
// so a script finds the turn folder or the fork point in it. Its time is
// the checkpoint's.
type checkpointDoc struct {
	ref  branchRef
	name string
}

func (d checkpointDoc) doc() ([]byte, time.Time, error) {
	v, err := d.ref.view()
	if err != nil {
		return nil, time.Time{}, err
	}
	c, err := backing.FindCheckpoint(v, d.name)
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	mtime := c.Time
	if mtime.IsZero() {
		mtime = v.ModTime()
	}
	return append(data, '\n'), mtime, err
}

// markHead marks the branch's head as the checkpoint (nothing stored when
// it stands there already).
func (d checkpointDoc) markHead() error {
	v, err := d.ref.view()
	if err != nil {
		return err
	}
	_, err = backing.MarkCheckpoint(d.ref.s, v, d.name)
	return err
}
