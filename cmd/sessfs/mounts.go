package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sessfs/sessfs/fsnode"
)

// mountDesc names a mount for a message: "a sessfs mount of /store" or
// "a mount of type ext4".
func mountDesc(e fsnode.Mount) string {
	if e.FSType == fsnode.FSType {
		return "a sessfs mount of " + e.Source
	}
	return "a mount of type " + e.FSType
}

// mountedAt is the topmost mount on dir (an absolute path, symlinks
// resolved: see realPath), if dir is a mount point; err when the mount
// table cannot be read.
func mountedAt(dir string) (e fsnode.Mount, ok bool, err error) {
	mounts, err := fsnode.MountTable()
	for _, m := range mounts {
		if m.Dir == dir {
			// Later lines are mounted over earlier ones: the last one wins.
			e, ok = m, true
		}
	}
	return e, ok, err
}

// sessfsMountOver is the sessfs mount that path (absolute, symlinks
// resolved) is in, if it is in one.
func sessfsMountOver(path string) (fsnode.Mount, bool) {
	mounts, _ := fsnode.MountTable()
	for _, m := range mounts {
		if m.FSType == fsnode.FSType && within(path, m.Dir) {
			return m, true
		}
	}
	return fsnode.Mount{}, false
}

// realPath is path as the kernel resolves it, and as the mount table names
// it: absolute, with every symlink followed, a dangling one too. Where the
// path stops existing (a store about to be made), or cannot be looked up
// (a dead mount: even lstat fails there), the rest is taken as it is.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	links := 0
	var resolve func(p string) (string, error)
	resolve = func(p string) (string, error) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r, nil
		}
		dir, err := resolve(filepath.Dir(p))
		if err != nil {
			return "", err
		}
		q := filepath.Join(dir, filepath.Base(p))
		target, err := os.Readlink(q)
		if err != nil {
			return q, nil // not a symlink, or not there
		}
		if links++; links > 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		if !filepath.IsAbs(target) {
			target = dir + "/" + target
		}
		return resolve(target)
	}
	return resolve(abs)
}
