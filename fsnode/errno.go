package fsnode

import (
	"errors"
	"io/fs"
	"log"
	"syscall"

	"github.com/sessfs/sessfs/backing"
)

// toErrno maps a store error to the errno a shell prints sensibly. It is
// the only place that does: nodes return n.fsys.toErrno(err) and nothing
// else. EIO means a real I/O failure and is logged, so it can be found.
// Damage a person must look at (backing.ErrDamaged; ELOOP when it is a
// symbolic link the store found where it keeps a file) is logged once a
// mount for each such error, not at every request that meets it.
func (f *FS) toErrno(err error) syscall.Errno {
	var errno syscall.Errno
	switch {
	case err == nil:
		return 0
	case errors.Is(err, backing.ErrUnavailable):
		// First: the cause inside may be a socket's ENOENT or EACCES,
		// which would read as the file's own.
		log.Printf("sessfs: I/O error: %v", err)
		return syscall.EIO
	case errors.Is(err, backing.ErrNameTooLong):
		return syscall.ENAMETOOLONG
	case errors.Is(err, backing.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, backing.ErrExist), errors.Is(err, fs.ErrExist):
		return syscall.EEXIST
	case errors.Is(err, backing.ErrInvalid), errors.Is(err, backing.ErrBadName):
		return syscall.EINVAL
	case errors.Is(err, backing.ErrTooLarge):
		return syscall.EFBIG
	case errors.Is(err, backing.ErrBusy):
		return syscall.EBUSY
	case errors.Is(err, backing.ErrNotEmpty):
		return syscall.ENOTEMPTY
	case errors.Is(err, backing.ErrTrashed):
		return syscall.EROFS
	case errors.Is(err, backing.ErrDamaged):
		// Damage a person must look at, not an I/O failure: say where.
		if f.firstReport("damage: " + err.Error()) {
			log.Printf("sessfs: %v", err)
		}
		if errors.Is(err, syscall.ELOOP) {
			return syscall.ELOOP
		}
		return syscall.EIO
	case errors.Is(err, fs.ErrPermission):
		return syscall.EACCES
	case errors.As(err, &errno):
		if errno == syscall.ENOSPC || errno == syscall.EDQUOT || errno == syscall.EROFS {
			return errno
		}
	}
	log.Printf("sessfs: I/O error: %v", err)
	return syscall.EIO
}
