package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/fsnode"
)

// newEphemeral is `sessfs new --ephemeral`: a session in the memory of a
// mount of the store, made as a user would, by mkdir MOUNT/tmp/NAME, and
// given m's fields through its meta.json. The command line opens the
// store itself and has no memory to keep a session in: with no mount of
// the store up, it refuses, saying so. It prints the session's folder,
// the one way to reach it.
func newEphemeral(c *cli, name string, m backing.Meta) int {
	root, err := c.storeRoot()
	if err != nil {
		return c.fail(err)
	}
	if !isDatabase(root) {
		if root, err = realPath(root); err != nil {
			return c.fail(err)
		}
	}
	mnt, ok := storeMount(root)
	if !ok {
		return c.fail(fmt.Errorf("--ephemeral: an ephemeral session lives in the memory of a mount (MOUNT/tmp/), and no sessfs mount of %s is up: mount the store first (sessfs mount DIR), or make one with mkdir DIR/tmp/NAME", root))
	}
	if name == "" {
		name = backing.GeneratedName(uuid.Must(uuid.NewV7()), time.Now())
	}
	dir := filepath.Join(mnt.Dir, "tmp", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return c.fail(err)
	}
	if err := setFields(filepath.Join(dir, "meta.json"), m); err != nil {
		return c.fail(err)
	}
	fmt.Println(dir)
	return exitOK
}

// storeMount is the first sessfs mount of the store at root (resolved)
// in the mount table.
func storeMount(root string) (fsnode.Mount, bool) {
	mounts, _ := fsnode.MountTable()
	for _, e := range mounts {
		if e.FSType == fsnode.FSType && e.Source == root {
			return e, true
		}
	}
	return fsnode.Mount{}, false
}

// setFields writes m's title, model, tags, folder and extra fields into
// the meta.json at path, as an editor would: read, change, write back.
func setFields(path string, m backing.Meta) error {
	if m.Title == "" && m.Model == "" && len(m.Tags) == 0 && m.Cwd == "" && len(m.Extra) == 0 {
		return nil
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cur, err := backing.DecodeMeta(doc)
	if err != nil {
		return err
	}
	cur.Title, cur.Model, cur.Tags, cur.Cwd = m.Title, m.Model, m.Tags, m.Cwd
	for k, v := range m.Extra {
		cur.PutExtra(k, v)
	}
	if doc, err = backing.EncodeMeta(cur); err != nil {
		return err
	}
	return os.WriteFile(path, doc, 0o644)
}
