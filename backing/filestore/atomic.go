package filestore

import (
	"bufio"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	dirMode  = 0o700
	fileMode = 0o600
	// tmpPrefix marks the temporary files of atomic replaces; a crash can
	// leave one behind, which readers ignore and fsck quarantines.
	tmpPrefix = ".tmp-"
)

// writeFileAtomic replaces a store file with data (see WriteFileAtomic),
// its folder reached without following a link.
func writeFileAtomic(path string, data []byte) error {
	return replaceFile(path, fileMode, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileAtomic replaces path with what write writes, so that a reader or
// a crash sees either the old file or the new one: write a temp file,
// fsync, rename over, fsync the directory. If write fails, path is left as
// it was. The command line writes its exports so, to the user's path.
func WriteFileAtomic(path string, mode os.FileMode, write func(io.Writer) error) error {
	return replaceFile(path, mode, false, write)
}

// replaceFile opens path's folder and replaces path in it (replaceAt). A
// folder of the store (inStore) is reached without following a link; a
// user's is opened as the user gave it.
func replaceFile(path string, mode os.FileMode, inStore bool, write func(io.Writer) error) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var fd int
	var err error
	if inStore {
		if fd, err = openat2(dir, os.O_RDONLY|unix.O_DIRECTORY, 0); err != nil {
			return pathError("open", dir, err)
		}
	} else {
		if fd, err = unix.Open(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			return &os.PathError{Op: "open", Path: dir, Err: err}
		}
	}
	defer unix.Close(fd)
	return replaceAt(fd, dir, name, mode, write)
}

// replaceAt is the atomic replace of name in the open folder dir (dirPath
// names it in errors): the temp file is made in dir with O_EXCL and never
// through a link, and renamed over name within dir.
func replaceAt(dir int, dirPath, name string, mode os.FileMode, write func(io.Writer) error) error {
	var tmp string
	var fd int
	for {
		tmp = tmpPrefix + name + "-" + strconv.FormatUint(uint64(rand.Uint32()), 10)
		var err error
		fd, err = unix.Openat(dir, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, fileMode)
		if err == unix.EEXIST {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "create", Path: filepath.Join(dirPath, tmp), Err: err}
		}
		break
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dirPath, tmp))
	ok := false
	defer func() {
		if !ok {
			f.Close()
			unix.Unlinkat(dir, tmp, 0)
		}
	}()
	if err := f.Chmod(mode); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := unix.Renameat(dir, tmp, dir, name); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(dirPath, tmp), New: filepath.Join(dirPath, name), Err: err}
	}
	ok = true
	if err := unix.Fsync(dir); err != nil {
		return &os.PathError{Op: "fsync", Path: dirPath, Err: err}
	}
	return nil
}

// createExclusive writes a new file of the store that must not exist yet,
// durably.
func createExclusive(path string, data []byte) error {
	if err := writeNew(path, data, true); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeNew writes a new file of the store that must not exist yet, its
// data fsynced when sync is set (its name is not: see createExclusive).
func writeNew(path string, data []byte, sync bool) error {
	f, err := openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove(path) // a refused write leaves no empty or partial file
	}
	return err
}

func isTemp(name string) bool { return strings.HasPrefix(name, tmpPrefix) }
