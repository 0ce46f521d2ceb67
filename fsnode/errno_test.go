package fsnode

import (
	"bytes"
	"fmt"
	"log"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// A symbolic link the store refuses is ELOOP at every request, and logged
// once a mount: a shell loop over a damaged session does not flood the
// log with one line a request.
func TestSymlinkErrorLoggedOnce(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&logged)
	f, other := New(st, Options{}).fsys, New(st, Options{}).fsys
	a := fmt.Errorf("/store/sessions/a/meta.json: %w", filestore.ErrSymlink)
	b := fmt.Errorf("/store/sessions/b/meta.json: %w", filestore.ErrSymlink)
	for _, c := range []struct {
		fsys *FS
		err  error
	}{{f, a}, {f, a}, {f, b}, {f, a}, {f, b}, {other, a}} {
		if errno := c.fsys.toErrno(c.err); errno != syscall.ELOOP {
			t.Errorf("toErrno(%v) = %v, want ELOOP", c.err, errno)
		}
	}
	// Each error once on each mount.
	if got := strings.Count(logged.String(), "\n"); got != 3 || strings.Count(logged.String(), "/a/") != 2 {
		t.Errorf("logged:\n%s\nwant a's error once a mount (2 mounts) and b's once", logged.String())
	}
	// Damage of another kind is logged the same way, and no loop.
	if errno := f.toErrno(fmt.Errorf("row 3: %w", backing.ErrDamaged)); errno != syscall.EIO {
		t.Errorf("toErrno(damage) = %v, want EIO", errno)
	}
	if !strings.Contains(logged.String(), "row 3") {
		t.Errorf("damage not logged:\n%s", logged.String())
	}
}

// A store that cannot be reached is EIO, logged, whatever system error is
// inside: a database's socket gone is ENOENT, which must not read as "no
// such file" of the file asked for.
func TestUnavailableIsEIO(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&logged)
	f := New(st, Options{}).fsys
	cause := fmt.Errorf("dial unix /tmp/s/.s.PGSQL.5432: %w", syscall.ENOENT)
	// Both at once, as an engine that kept its cause for errors.Is
	// would make it: unavailable wins.
	err = fmt.Errorf("append: %w: %w", backing.ErrUnavailable, cause)
	if errno := f.toErrno(err); errno != syscall.EIO {
		t.Errorf("toErrno(%v) = %v, want EIO", err, errno)
	}
	if !strings.Contains(logged.String(), "I/O error") || !strings.Contains(logged.String(), ".s.PGSQL.5432") {
		t.Errorf("logged %q, want the I/O error and its cause", logged.String())
	}
}
