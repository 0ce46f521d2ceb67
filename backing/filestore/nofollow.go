package filestore

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sessfs/sessfs/backing"
	"golang.org/x/sys/unix"
)

// The store never follows a symbolic link it did not make (DESIGN.md, "The
// store"): a link put where it keeps a file or a folder would lead its
// reads, and worse its appends and repairs, outside the store. So every
// path inside the store is resolved by the kernel with RESOLVE_NO_SYMLINKS
// (openat2), from a root whose own links Open resolved once; an operation
// on a folder's entry (rename, remove, mkdir, symlink, readlink, chmod) is
// made relative to the folder, opened that way. Nothing else in backing
// opens, lists, moves or removes a path of the store. The links sessfs
// makes itself (names/, archive/, trash/) are read with readlink, never
// followed, and checked by readLink.

// ErrSymlink refuses a symbolic link found where the store keeps a file or
// a folder. Reads and writes through it fail; fsck reports it. It is
// damage (backing.ErrDamaged), and ELOOP for a caller that maps errnos.
var ErrSymlink error = symlinkError{}

type symlinkError struct{}

func (symlinkError) Error() string {
	return "a symbolic link sessfs did not make (sessfs never follows one; see sessfs fsck)"
}

func (symlinkError) Is(target error) bool {
	return target == backing.ErrDamaged || target == syscall.ELOOP
}

// openat2 opens path with symbolic links refused on the whole way. Only an
// O_PATH open may end on a link, and then it gets the link itself.
func openat2(path string, flag int, perm os.FileMode) (int, error) {
	if flag&unix.O_PATH == 0 {
		flag |= unix.O_NOFOLLOW
	}
	how := &unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openFile is os.OpenFile for a path of the store.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := openat2(path, flag, perm)
	if err != nil {
		return nil, pathError("open", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// pathError is err as os.PathError, or as ErrSymlink naming the link when
// the kernel refused one: ELOOP, or ENOTDIR for a folder opened with
// O_NOFOLLOW.
func pathError(op, path string, err error) error {
	if err == unix.ELOOP || err == unix.ENOTDIR {
		if link := firstLink(path); link != "" || err == unix.ELOOP {
			return fmt.Errorf("%s: %w", cmp.Or(link, path), ErrSymlink)
		}
	}
	return &os.PathError{Op: op, Path: path, Err: err}
}

// linkError is ErrSymlink naming the first link on path.
func linkError(path string) error {
	return fmt.Errorf("%s: %w", cmp.Or(firstLink(path), path), ErrSymlink)
}

// firstLink is the first symbolic link on path, or "". Open resolved the
// links of the root, so it is one inside the store.
func firstLink(path string) string {
	for i := 1; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		if fi, err := os.Lstat(path[:i]); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return path[:i]
		}
	}
	return ""
}

// readFile is os.ReadFile for a file of the store.
func readFile(path string) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// As os.ReadFile: one buffer of the file's size, where io.ReadAll
	// grows one from 512 bytes, copying a kept index of 25 MB some 30
	// times at a fresh mount's first stat of a long session.
	size := 0
	if fi, err := f.Stat(); err == nil && fi.Size() < 1<<40 {
		size = int(fi.Size())
	}
	data := make([]byte, 0, size+1) // +1: EOF is seen without growing
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: room for more
		}
	}
}

// readDir is os.ReadDir for a folder of the store: its entries sorted by
// name, links among them listed, not followed.
func readDir(path string) ([]os.DirEntry, error) {
	f, err := openFile(path, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// statEntries calls fn with the name and lstat of each entry of the
// folder at path that keep accepts, the folder opened without following
// a link. An entry that goes
// before it is stat'ed is left out. It is readDir and an lstat of each
// entry in the fewest calls: stat'ed through the folder, an entry's path
// is not walked again (LastAppend, at every ls -l of the mount).
func statEntries(path string, keep func(name string) bool, fn func(name string, st *unix.Stat_t)) error {
	fd, err := openat2(path, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return pathError("open", path, err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 8<<10)
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return pathError("readdirent", path, err)
		}
		if n == 0 {
			return nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			if !keep(name) {
				continue
			}
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
				fn(name, &st)
			}
		}
	}
}

// stat is os.Stat for a path of the store, refusing a link anywhere on
// it, its last element included.
func stat(path string) (os.FileInfo, error) {
	f, err := openFile(path, unix.O_PATH, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// inDir calls fn with path's folder, opened without following a link, and
// path's last element: fn acts on that entry, and no link on the way can be
// swapped in between.
func inDir(op, path string, fn func(dir int, name string) error) error {
	dir, name := filepath.Split(path)
	fd, err := openat2(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return pathError(op, path, err)
	}
	defer unix.Close(fd)
	if err := fn(fd, name); err != nil {
		return pathError(op, path, err)
	}
	return nil
}

// rename is os.Rename within the store; flags as for renameat2
// (unix.RENAME_NOREPLACE: never over an existing entry).
func rename(from, to string, flags uint) error {
	return inDir("rename", from, func(fromDir int, fromName string) error {
		return inDir("rename", to, func(toDir int, toName string) error {
			return unix.Renameat2(fromDir, fromName, toDir, toName, flags)
		})
	})
}

// remove is os.Remove within the store: a link is removed, not followed.
func remove(path string) error {
	return inDir("remove", path, func(dir int, name string) error {
		err := unix.Unlinkat(dir, name, 0)
		if err == unix.EISDIR {
			err = unix.Unlinkat(dir, name, unix.AT_REMOVEDIR)
		}
		return err
	})
}

// removeAll is os.RemoveAll within the store. RemoveAll never follows a
// link inside path; the folders on the way to it are checked first.
func removeAll(path string) error {
	if err := inDir("remove", path, func(int, string) error { return nil }); err != nil {
		return err
	}
	return os.RemoveAll(path)
}

// mkdir is os.Mkdir within the store.
func mkdir(path string, perm os.FileMode) error {
	return inDir("mkdir", path, func(dir int, name string) error {
		return unix.Mkdirat(dir, name, uint32(perm.Perm()))
	})
}

// mkdirExisting makes a folder unless it exists; an entry of that name
// that is not a folder (a link, say) is refused.
func mkdirExisting(path string) error {
	err := mkdir(path, dirMode)
	if !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := stat(path)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return backing.Sentencef(backing.ErrInvalid, "%s is not a folder", path)
	}
	return nil
}

// symlink is os.Symlink within the store: the links sessfs makes.
func symlink(target, path string) error {
	return inDir("symlink", path, func(dir int, name string) error {
		return unix.Symlinkat(target, dir, name)
	})
}

// readlink is os.Readlink within the store.
func readlink(path string) (string, error) {
	var target string
	err := inDir("readlink", path, func(dir int, name string) (err error) {
		target, err = readlinkAt(dir, name)
		return err
	})
	return target, err
}

// readlinkAt is readlinkat(2) of name in the folder open as dir.
func readlinkAt(dir int, name string) (string, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(dir, name, buf)
		if err != nil {
			return "", err
		}
		if n < len(buf) {
			return string(buf[:n]), nil
		}
		buf = make([]byte, 2*len(buf))
	}
}

// chmod is os.Chmod within the store, refusing a link: chmod(2) would
// change the link's target. The mode is set through /proc/self/fd on an
// O_PATH descriptor, as glibc's fchmodat does: that needs no read access,
// so a file of mode 0000 can be mended by its owner.
func chmod(path string, mode os.FileMode) error {
	fd, err := openat2(path, unix.O_PATH, 0)
	if err != nil {
		return pathError("chmod", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return pathError("chmod", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("%s: %w", path, ErrSymlink)
	}
	if err := unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), uint32(mode.Perm())); err != nil {
		return pathError("chmod", path, err)
	}
	return nil
}

// chtimes is os.Chtimes within the store: a link is never followed.
func chtimes(path string, t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	return inDir("chtimes", path, func(dir int, name string) error {
		return unix.UtimesNanoAt(dir, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
	})
}

// syncDir fsyncs a folder of the store, making the entries created,
// renamed or removed in it durable.
func syncDir(dir string) error {
	d, err := openFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}
