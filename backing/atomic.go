package backing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const (
	dirMode  = 0o700
	fileMode = 0o600
	// tmpPrefix marks the temporary files of atomic replaces; a crash can
	// leave one behind, which readers ignore and fsck quarantines.
	tmpPrefix = ".tmp-"
)

// writeFileAtomic replaces a store file with data (see WriteFileAtomic).
func writeFileAtomic(path string, data []byte) error {
	return WriteFileAtomic(path, data, fileMode)
}

// WriteFileAtomic replaces path with data so that a reader or a crash sees
// either the old file or the new one: write a temp file, fsync, rename over,
// fsync the directory. The store writes its own files so; the command line
// writes exports so.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	f, err := os.CreateTemp(dir, tmpPrefix+base+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return syncDir(dir)
}

// createExclusive writes a new file that must not exist yet, durably.
func createExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

func isTemp(name string) bool { return strings.HasPrefix(name, tmpPrefix) }
