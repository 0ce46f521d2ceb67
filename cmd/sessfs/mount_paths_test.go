package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/fsnode"
)

// mountIn runs `sessfs mount ARGS` in dir and returns how it ended. A mount
// that was not refused serves until killed: after 10 s it is killed (code
// -1), and whatever it mounted under base is detached.
func mountIn(t *testing.T, base, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"mount"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SESSFS_STORE="+filepath.Join(t.TempDir(), "default-store"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.code = -1
		detachUnder(t, base)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run sessfs mount %v: %v", args, err)
	}
	return r
}

// detachUnder detaches every mount at or below base.
func detachUnder(t *testing.T, base string) {
	for _, m := range mountsUnder(t, base) {
		syscall.Unmount(m, syscall.MNT_DETACH)
	}
}

// mountsUnder lists the mounts at or below base (symlinks resolved).
func mountsUnder(t *testing.T, base string) []string {
	t.Helper()
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	mounts, err := fsnode.MountTable()
	if err != nil {
		t.Fatal(err)
	}
	var under []string
	for _, m := range mounts {
		if within(m.Dir, real) {
			under = append(under, m.Dir)
		}
	}
	return under
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// A mount point and a store are compared with their symlinks resolved:
// a mount point given as a link into the store, or a store given as a link
// to a folder holding the mount point, is refused in one line with exit 1
// and nothing mounted. Before, the first was mounted, hid the store's
// sessions, and a mkdir in it hung the daemon in its own mount.
func TestMountRefusesLinksIntoTheStore(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the paths under base and returns the arguments of
		// sessfs mount, run in base.
		setup func(t *testing.T, base string) []string
		want  string
	}{
		{"mount point a link to a folder inside the store", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "store", "inner"))
			symlink(t, filepath.Join(base, "store", "inner"), filepath.Join(base, "link"))
			return []string{"--store", filepath.Join(base, "store"), filepath.Join(base, "link")}
		}, "is inside or over the store"},
		{"the same in the background", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "store", "inner"))
			symlink(t, filepath.Join(base, "store", "inner"), filepath.Join(base, "link"))
			return []string{"--daemon", "--store", filepath.Join(base, "store"), filepath.Join(base, "link")}
		}, "is inside or over the store"},
		{"mount point a link to the store", func(t *testing.T, base string) []string {
			symlink(t, filepath.Join(base, "store"), filepath.Join(base, "link"))
			return []string{"--store", filepath.Join(base, "store"), filepath.Join(base, "link")}
		}, "is inside or over the store"},
		{"relative paths, a relative link", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "store", "inner"))
			symlink(t, "store/inner", filepath.Join(base, "link"))
			return []string{"--store", "store", "link"}
		}, "is inside or over the store"},
		{"store a link to a folder holding the mount point", func(t *testing.T, base string) []string {
			if r := runIn(t, "", "new", "--store", filepath.Join(base, "dir"), "s"); r.code != 0 {
				t.Fatalf("sessfs new: %v", r)
			}
			mkdir(t, filepath.Join(base, "dir", "mnt"))
			symlink(t, filepath.Join(base, "dir"), filepath.Join(base, "storelink"))
			return []string{"--store", filepath.Join(base, "storelink"), filepath.Join(base, "dir", "mnt")}
		}, "is inside or over the store"},
		{"store through a link inside the mount point", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "mnt"))
			symlink(t, filepath.Join(base, "store"), filepath.Join(base, "mnt", "store"))
			return []string{"--store", filepath.Join(base, "mnt", "store"), filepath.Join(base, "mnt")}
		}, "is inside or over the store"},
		{"store a dangling link into the mount point", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "mnt"))
			symlink(t, filepath.Join(base, "mnt", "new-store"), filepath.Join(base, "storelink"))
			return []string{"--store", filepath.Join(base, "storelink"), filepath.Join(base, "mnt")}
		}, "is inside or over the store"},
		{"mount point a link into the agent's folder", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "agent", "inner"))
			symlink(t, filepath.Join(base, "agent", "inner"), filepath.Join(base, "link"))
			return []string{"--store", filepath.Join(base, "store"), "--source", "claude-code", filepath.Join(base, "agent"), filepath.Join(base, "link")}
		}, "is inside or over the agent's folder"},
		{"agent's folder a link to a folder holding the mount point", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "agent", "mnt"))
			symlink(t, filepath.Join(base, "agent"), filepath.Join(base, "agentlink"))
			return []string{"--store", filepath.Join(base, "store"), "--source", "claude-code", filepath.Join(base, "agentlink"), filepath.Join(base, "agent", "mnt")}
		}, "is inside or over the agent's folder"},
		{"store inside the agent's folder", func(t *testing.T, base string) []string {
			mkdir(t, filepath.Join(base, "agent"))
			mkdir(t, filepath.Join(base, "mnt"))
			symlink(t, filepath.Join(base, "agent", "cache"), filepath.Join(base, "storelink"))
			return []string{"--store", filepath.Join(base, "storelink"), "--source", "claude-code", filepath.Join(base, "agent"), filepath.Join(base, "mnt")}
		}, "is inside or over the agent's folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			if r := runIn(t, "", "new", "--store", filepath.Join(base, "store"), "s"); r.code != 0 {
				t.Fatalf("sessfs new: %v", r)
			}
			args := tt.setup(t, base)
			r := mountIn(t, base, base, args...)
			if r.code == -1 {
				t.Fatalf("sessfs mount %v was not refused: it served for 10 s\n%v", args, r)
			}
			if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, "sessfs mount: ") ||
				!strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("sessfs mount %v: want exit 1 and one line holding %q: %v", args, tt.want, r)
			}
			if m := mountsUnder(t, base); len(m) > 0 {
				detachUnder(t, base)
				t.Errorf("sessfs mount %v mounted %q", args, m)
			}
			t.Logf("%s", r.stderr)
		})
	}
}

// needMount skips a test that mounts when this machine cannot, unless
// SESSFS_REQUIRE_FUSE=1 (set by CI): there it fails, for CI must never
// silently not run a mount test.
func needMount(t *testing.T) {
	t.Helper()
	reason := ""
	if os.Geteuid() != 0 {
		reason = "not root"
	} else if f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0); err != nil {
		reason = fmt.Sprintf("cannot open /dev/fuse: %v", err)
	} else {
		f.Close()
	}
	if reason == "" {
		return
	}
	if os.Getenv("SESSFS_REQUIRE_FUSE") == "1" {
		t.Fatalf("mounting needs root and /dev/fuse (%s), and SESSFS_REQUIRE_FUSE=1", reason)
	}
	t.Skipf("mounting needs root and /dev/fuse: %s (set SESSFS_REQUIRE_FUSE=1 to fail instead)", reason)
}

// A mount point given as a link to a folder outside the store is mounted
// where the link leads, and its sessions are there; a store inside a sessfs
// mount is refused, for its daemon would call into that mount.
func TestMountThroughLinks(t *testing.T) {
	needMount(t)
	base := t.TempDir()
	store := filepath.Join(base, "store")
	if r := runIn(t, "", "new", "--store", store, "s"); r.code != 0 {
		t.Fatalf("sessfs new: %v", r)
	}
	mkdir(t, filepath.Join(base, "mnt"))
	symlink(t, filepath.Join(base, "mnt"), filepath.Join(base, "link"))
	if r := mountIn(t, base, base, "--daemon", "--store", store, "link"); r.code != 0 {
		t.Fatalf("sessfs mount --daemon through a link: %v", r)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(base, "mnt"))
	t.Cleanup(func() { detachUnder(t, base) })
	if m := mountsUnder(t, base); len(m) != 1 || m[0] != real {
		t.Fatalf("mounts under %s: %q, want %s", base, m, real)
	}
	if _, err := os.Stat(filepath.Join(base, "link", "s", "meta.json")); err != nil {
		t.Errorf("the session through the link: %v", err)
	}

	r := mountIn(t, base, base, "--store", filepath.Join(base, "link", "s", "store"), filepath.Join(base, "other"))
	if r.code != 1 || !strings.Contains(r.stderr, "is inside the sessfs mount at "+real) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("a store inside a sessfs mount: want exit 1 and one line: %v", r)
	}
	if m := mountsUnder(t, base); len(m) != 1 {
		t.Errorf("mounts under %s: %q, want the first alone", base, m)
	}
	if r := runIn(t, "", "umount", filepath.Join(base, "link")); r.code != 0 {
		t.Errorf("sessfs umount through the link: %v", r)
	}
}

// mount clears only a dead sessfs mount over its mount point: a dead mount
// of another filesystem, or a live one, is refused with what it is.
func TestMountedVerdict(t *testing.T) {
	for _, c := range []struct {
		e     fsnode.Mount
		dead  bool
		clear bool
		msg   string
	}{
		{fsnode.Mount{Dir: "/m", FSType: fsnode.FSType, Source: "/store"}, true, true, ""},
		{fsnode.Mount{Dir: "/m", FSType: fsnode.FSType, Source: "/store"}, false, false, "/m is already a sessfs mount of /store: unmount it first, or choose another folder"},
		{fsnode.Mount{Dir: "/m", FSType: "fuse.sshfs", Source: "host:"}, true, false, "/m is already a mount of type fuse.sshfs (a dead one: its daemon is gone): unmount it first, or choose another folder"},
		{fsnode.Mount{Dir: "/m", FSType: "ext4", Source: "/dev/sda1"}, false, false, "/m is already a mount of type ext4: unmount it first, or choose another folder"},
	} {
		clear, err := mountedVerdict("/m", c.e, c.dead)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if clear != c.clear || msg != c.msg {
			t.Errorf("mountedVerdict(%+v, dead=%v) = %v, %q; want %v, %q", c.e, c.dead, clear, msg, c.clear, c.msg)
		}
	}
}

// mount --source through a link follows the folder the link led to at
// mount time, whatever the link says later, and records that folder's
// paths; its cache is keyed by that folder too. Before, the folder was
// checked resolved but then used as given: a link changed later could
// lead the daemon elsewhere, into its own mount too.
func TestMountSourceThroughLink(t *testing.T) {
	needMount(t)
	base := t.TempDir()
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(base, "agent", "proj")
	mkdir(t, proj)
	mkdir(t, filepath.Join(base, "other"))
	mkdir(t, filepath.Join(base, "mnt"))
	write := func(file, session, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(proj, file), []byte(claudeLine(session, session+"-1", "", "user", text, false)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.jsonl", "session-a", "first session")
	symlink(t, filepath.Join(base, "agent"), filepath.Join(base, "link"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(base, "cache"))
	if r := mountIn(t, base, base, "--daemon", "--source", "claude-code", "link", "mnt"); r.code != 0 {
		t.Fatalf("sessfs mount --daemon --source through a link: %v", r)
	}
	t.Cleanup(func() { detachUnder(t, base) })
	mnt := filepath.Join(base, "mnt")

	cache, err := sourceCache("claude-code", filepath.Join(real, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, "FORMAT")); err != nil {
		t.Errorf("the cache is not keyed by the folder the link leads to: %v", err)
	}
	var meta struct {
		Source struct {
			Path string `json:"path"`
		} `json:"source"`
	}
	data, err := os.ReadFile(filepath.Join(mnt, "first-session", "meta.json"))
	if err != nil {
		names, _ := os.ReadDir(mnt)
		t.Fatalf("the agent's session is not in the mount: %v (the mount lists %v)", err, names)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(real, "agent", "proj", "a.jsonl"); meta.Source.Path != want {
		t.Errorf("meta.json's source path = %q, want %q, the link resolved", meta.Source.Path, want)
	}

	// The link now leads elsewhere; the mount still follows the agent.
	if err := os.Remove(filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(base, "other"), filepath.Join(base, "link"))
	write("b.jsonl", "session-b", "second session")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(mnt, "second-session")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			names, _ := os.ReadDir(mnt)
			t.Fatalf("the agent's new session is not in the mount after 10 s: %v", names)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := runIn(t, "", "umount", mnt); r.code != 0 {
		t.Errorf("sessfs umount: %v", r)
	}
}
