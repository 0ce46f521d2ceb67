package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sessfs/sessfs/backing/importer"
	"github.com/sessfs/sessfs/fsnode"
)

// daemonEnv marks the child of `mount --daemon`; its value is the number
// of the file descriptor on which it reports that the mount is up.
const daemonEnv = "SESSFS_DAEMON_READY_FD"

func runMount(args []string) int {
	c := newCLI("mount", "[-o ro,allow_other] [--debug] [--daemon] [--sync full|none] [--source FORMAT FOLDER] MOUNTPOINT",
		"Mounts the store at MOUNTPOINT and serves it until unmounted (sessfs umount,\n"+
			"fusermount3 -u, umount) or interrupted (Ctrl-C, SIGTERM), then exits 0.\n"+
			"Only the mounting user sees the sessions unless -o allow_other is given.\n"+
			"MOUNTPOINT is a folder outside the store where nothing is mounted yet; a\n"+
			"dead sessfs mount there (its daemon was killed) is cleared first.\n\n"+
			"With --source claude-code|codex|gemini|auto FOLDER, mounts another agent's folder\n"+
			"(~/.claude/projects, ~/.codex/sessions) instead, read-only, through the same tree,\n"+
			"following the agent as it writes (within a second). Nothing goes into your store:\n"+
			"the mount keeps its copy in ~/.cache/sessfs (--store names another place).")
	opts := c.fs.StringSliceP("options", "o", nil, "mount options, comma-separated: ro, allow_other")
	debug := c.fs.Bool("debug", false, "log every FUSE request to stderr")
	daemon := c.fs.Bool("daemon", false, "go to the background once the mount is up")
	syncMode := c.fs.String("sync", "full", "when appends reach the disk: full (fsync before a write returns) or none")
	source := c.fs.String("source", "", "mount an agent's `FORMAT` folder (claude-code, codex, gemini or auto) read-only: FOLDER MOUNTPOINT")
	rest, code, ok := c.parse(args, 1, 2)
	if !ok {
		return code
	}
	// The agent's folder of --source and its format; "" without.
	var sourceDir string
	var sourceFormat importer.Format
	switch {
	case *source == "" && len(rest) == 2:
		return c.usageError("one MOUNTPOINT, or --source FORMAT FOLDER MOUNTPOINT")
	case *source != "" && len(rest) != 2:
		return c.usageError("--source needs the agent's FOLDER and the MOUNTPOINT")
	case *source != "":
		switch *source {
		case "auto", string(importer.ClaudeCode), string(importer.Codex), string(importer.Gemini):
		default:
			return c.usageError(fmt.Sprintf("--source %q: want claude-code, codex, gemini or auto", *source))
		}
		dir, err := filepath.Abs(rest[0])
		if err != nil {
			return c.fail(err)
		}
		if fi, err := os.Stat(dir); err != nil {
			return c.fail(err)
		} else if !fi.IsDir() {
			return c.fail(fmt.Errorf("%s is not a folder", dir))
		}
		if c.store == "" {
			// Keyed by the folder the links lead to: one cache a folder,
			// however it is named.
			real, err := realPath(dir)
			if err != nil {
				return c.fail(err)
			}
			if c.store, err = sourceCache(*source, real); err != nil {
				return c.fail(err)
			}
		}
		sourceDir, sourceFormat = dir, importer.Format(*source)
		rest = rest[1:]
	}
	fo := fsnode.Options{Debug: *debug, FileHistory: agentFileHistory()}
	for _, o := range *opts {
		switch strings.TrimSpace(o) {
		case "ro":
			fo.ReadOnly = true
		case "rw", "":
		case "allow_other":
			fo.AllowOther = true
		default:
			return c.usageError(fmt.Sprintf("unknown mount option %q (known: ro, allow_other)", o))
		}
	}
	durable := true
	if sourceDir != "" {
		// A copy the mount makes again from the agent's files after any
		// crash: no fsync needed, and nothing to write through the mount.
		*syncMode = "none"
		fo.ReadOnly = true
	}
	switch *syncMode {
	case "full":
	case "none":
		durable = false
	default:
		return c.usageError(fmt.Sprintf("--sync %q: want full or none", *syncMode))
	}
	mnt, err := filepath.Abs(rest[0])
	if err != nil {
		return c.fail(err)
	}
	if *daemon {
		return c.daemonize(args)
	}
	root, err := c.storeRoot()
	if err != nil {
		return c.fail(err)
	}
	// From here on the mount point, the store and the agent's folder are
	// the resolved paths: no symlink, changed later or not, can lead the
	// daemon into its mount.
	mnt, root, sourceDir, err = checkPaths(mnt, root, sourceDir)
	if err != nil {
		return c.fail(err)
	}
	if err := checkMountpoint(mnt); err != nil {
		return c.fail(err)
	}
	leaveRoomForRequests()
	keepHeapSmall()
	st, err := openStore(root, durable, true)
	if err != nil {
		return c.fail(err)
	}
	if sourceDir != "" {
		// What sessfs sync does, into a store of the mount's own: a first
		// scan before the tree shows, then Watch follows (its own first
		// scan, which catches what changed in between, costs a stat a file).
		syncer := importer.NewSyncer(importer.New(st, importer.Options{
			Format:   sourceFormat,
			AutoFlag: "--source auto",
			Sync:     true,
		}), []string{sourceDir}, nil, func(r importer.Result) {
			if r.Err != nil {
				c.warn(fmt.Errorf("%s: %w", r.Path, r.Err))
			}
		})
		if _, err := syncer.Scan(); err != nil {
			return c.fail(fmt.Errorf("--source %s: %w", sourceDir, err))
		}
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			err := syncer.Watch(stop, rescanEvery, func(_ importer.ScanCounts, err error) {
				if err != nil {
					c.warn(err)
				}
			})
			if err != nil {
				c.warn(fmt.Errorf("--source %s: no longer following the folder: %w", sourceDir, err))
			}
		}()
	}
	if !fo.ReadOnly {
		// MOUNT/tmp/: sessions in this daemon's memory, as long as it
		// runs. A read-only mount could make none: it has no tmp/.
		fo.Tmp = ephemeralStore()
	}
	// Unmount on Ctrl-C and SIGTERM; Wait returns once unmounted, whoever
	// unmounts. Caught from before the mount: the mount point is live
	// (and a signal may come) before fs.Mount returns, and a signal not
	// caught then would end the process and leave a dead mount.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	server, err := fsnode.MountServer(mnt, fsnode.New(st, fo), fsnode.MountOptions(st, fo))
	if err != nil {
		// go-fuse's message can end in a newline: one line, then the hint.
		return c.fail(fmt.Errorf("mount %s: %s%s", mnt, strings.TrimSpace(err.Error()), mountHint()))
	}
	go func() {
		<-sigs
		if server.Unmount() == nil {
			return
		}
		// Files are open: detach the mount now (nothing new can be
		// opened), let the requests in flight and the open files finish
		// for a grace period, then go; what is still open then fails
		// with ENOTCONN. The store is crash-safe either way.
		if err := unmount(mnt, true); err != nil {
			c.warn(fmt.Errorf("detach %s: %w", mnt, err))
		}
		time.Sleep(shutdownGrace)
		fmt.Fprintf(os.Stderr, "sessfs mount: files under %s still open after %v; exiting\n", mnt, shutdownGrace)
		os.Exit(exitOK)
	}()
	reportReady(mnt)
	server.Wait()
	return exitOK
}

// leaveRoomForRequests gives the Go scheduler two Ps more than the CPUs,
// unless GOMAXPROCS is set. The file engine's background work (an index
// build and its read-ahead, seals) runs on threads of the lowest priority
// (filestore's lowPriority), which the kernel preempts for the user's
// requests; but a request's goroutine must first get a P, and with one P
// a CPU the background holds them all: it waited for the scheduler's
// preemption, up to 10 ms a request (a warm cat of a long transcript
// took 5-24 ms during an index build instead of 4).
func leaveRoomForRequests() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 2)
	}
}

// mountGCPercent is how far a mount lets its heap grow past what is live
// before Go's collector runs (runtime/debug.SetGCPercent), unless GOGC
// says otherwise. Its caches are bounded (piece offsets, log indexes, one
// big piece), but at Go's default of 100 the heap grows to twice them:
// after reading every file of a 1 GB store, 205 MiB of RSS; at 50, 156
// MiB for the same CPU as a 128 MiB memory limit, which would instead
// collect without end once a huge session's log index alone outgrew it.
const mountGCPercent = 50

func keepHeapSmall() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mountGCPercent)
	}
}

// shutdownGrace is how long a mount asked to stop while files are open
// serves them before it exits.
const shutdownGrace = 5 * time.Second

// mountHint says what a failed mount most likely lacks: a user that is not
// root mounts through fusermount3 (Debian: apt-get install fuse3), which
// needs /dev/fuse to be open to them.
func mountHint() string {
	if os.Geteuid() == 0 {
		return ""
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		return " (fusermount3 is not installed: on Debian, apt-get install fuse3)"
	}
	if f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0); err != nil {
		return fmt.Sprintf(" (%v: FUSE is not available to this user)", err)
	} else {
		f.Close()
	}
	return ""
}

// storeRoot is the store the command works on: an absolute path, or a
// database's URL.
func (c *cli) storeRoot() (string, error) {
	root := c.store
	if root == "" {
		var err error
		if root, err = defaultStore(); err != nil {
			return "", err
		}
	}
	return absStore(root)
}

// checkPaths refuses a mount whose daemon would call into its own mount,
// which deadlocks it: a mount point inside or over the store, or over the
// agent's folder of --source (source, "" without), and a store inside or
// over that folder or inside a sessfs mount. Paths are compared as given
// and with every symlink resolved: a mount point given as a link to a
// folder inside the store passed the first check alone, hid the store's
// sessions, and a mkdir in it hung the daemon. It returns the mount point,
// the store and the agent's folder resolved, for the daemon to use: the
// folder as given could be a link changed later to lead into the mount.
func checkPaths(mnt, store, source string) (realMnt, realStore, realSource string, err error) {
	if realMnt, err = realPath(mnt); err != nil {
		return "", "", "", err
	}
	// A database is no path: it can overlap nothing, and the checks of
	// the store below pass with it left out ("").
	db := ""
	if isDatabase(store) {
		db, store = store, ""
	} else if realStore, err = realPath(store); err != nil {
		return "", "", "", err
	}
	if source != "" {
		if realSource, err = realPath(source); err != nil {
			return "", "", "", err
		}
	}
	overlap := func(a, realA, b, realB string) bool {
		return b != "" && (within(a, b) || within(b, a) || within(realA, realB) || within(realB, realA))
	}
	switch {
	case overlap(mnt, realMnt, store, realStore):
		return "", "", "", fmt.Errorf("mount point %s is inside or over the store %s: choose a folder outside it", shown(mnt, realMnt), shown(store, realStore))
	case overlap(mnt, realMnt, source, realSource):
		return "", "", "", fmt.Errorf("mount point %s is inside or over the agent's folder %s: choose a folder outside it", shown(mnt, realMnt), shown(source, realSource))
	case overlap(store, realStore, source, realSource):
		return "", "", "", fmt.Errorf("the store %s is inside or over the agent's folder %s: choose another --store", shown(store, realStore), shown(source, realSource))
	}
	if db != "" {
		return realMnt, db, realSource, nil
	}
	if e, ok := sessfsMountOver(realStore); ok {
		return "", "", "", fmt.Errorf("the store %s is inside the sessfs mount at %s: choose a store outside every sessfs mount", shown(store, realStore), e.Dir)
	}
	return realMnt, realStore, realSource, nil
}

// shown is a path for a message: as given, and where it leads when a
// symlink makes that another place.
func shown(path, real string) string {
	if path == real {
		return path
	}
	return path + " (→ " + real + ")"
}

// checkMountpoint refuses a mount point where something is mounted already
// (a second mount would silently hide the first), but clears a dead sessfs
// mount left by a daemon that was killed. mnt is resolved (realPath).
func checkMountpoint(mnt string) error {
	if e, ok, _ := mountedAt(mnt); ok {
		clear, err := mountedVerdict(mnt, e, deadMount(mnt))
		if err != nil {
			return err
		}
		if clear {
			fmt.Fprintf(os.Stderr, "sessfs mount: %s is a dead mount (its daemon is gone); unmounting it first\n", mnt)
			if err := unmount(mnt, true); err != nil {
				return fmt.Errorf("clear the dead mount at %s: %w", mnt, err)
			}
		}
	}
	if _, err := os.Stat(mnt); err != nil {
		return err
	}
	if e, ok, _ := mountedAt(mnt); ok { // what a cleared mount was over
		return alreadyMounted(mnt, e, false)
	}
	return nil
}

// mountedVerdict says what to do with e, mounted on mount point mnt: clear
// it when it is a dead sessfs mount (dead: statfs fails), else refuse the
// mount point. Only sessfs's own mounts are cleared: a dead mount of
// another filesystem (sshfs's, say) is its user's to deal with, and
// whatever is mounted must not be hidden.
func mountedVerdict(mnt string, e fsnode.Mount, dead bool) (clear bool, err error) {
	if dead && e.FSType == fsnode.FSType {
		return true, nil
	}
	return false, alreadyMounted(mnt, e, dead)
}

// alreadyMounted refuses mount point mnt, where e is mounted.
func alreadyMounted(mnt string, e fsnode.Mount, dead bool) error {
	state := ""
	if dead {
		state = " (a dead one: its daemon is gone)"
	}
	return fmt.Errorf("%s is already %s%s: unmount it first, or choose another folder", mnt, mountDesc(e), state)
}

// deadMount reports whether mnt is a FUSE mount whose daemon is gone.
// statfs, which the kernel never answers from its cache, tells: a stat
// may still be served from cached attributes for a while.
func deadMount(mnt string) bool {
	var s syscall.Statfs_t
	err := syscall.Statfs(mnt, &s)
	return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// daemonize starts this command again in the background and returns once
// it reports the mount up, or its error.
func (c *cli) daemonize(args []string) int {
	r, w, err := os.Pipe()
	if err != nil {
		return c.fail(err)
	}
	var childArgs []string
	for _, a := range args {
		if a != "--daemon" {
			childArgs = append(childArgs, a)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return c.fail(err)
	}
	cmd := exec.Command(self, append([]string{"mount"}, childArgs...)...)
	cmd.Env = append(os.Environ(), daemonEnv+"=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The child's errors before the mount is up go to our stderr; after,
	// nowhere: a daemon has no terminal.
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return c.fail(err)
	}
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		cmd.Wait()
		return exitFail
	}
	fmt.Printf("sessfs: mounted (pid %d); unmount with: sessfs umount %s\n", cmd.Process.Pid, c.fs.Arg(c.fs.NArg()-1))
	return exitOK
}

// reportReady tells the parent of a daemon that the mount is up and lets
// go of the terminal.
func reportReady(mnt string) {
	fd, err := strconv.Atoi(os.Getenv(daemonEnv))
	if err != nil {
		return // not a daemon's child
	}
	f := os.NewFile(uintptr(fd), "ready")
	fmt.Fprintln(f, "ready")
	f.Close()
	if devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		syscall.Dup2(int(devnull.Fd()), 0)
		syscall.Dup2(int(devnull.Fd()), 1)
		syscall.Dup2(int(devnull.Fd()), 2)
	}
}

func runUmount(args []string) int {
	c := newCLI("umount", "[--lazy] MOUNTPOINT",
		"Unmounts a sessfs mount, a dead one too; its `sessfs mount` process then\n"+
			"exits 0. A path where no sessfs is mounted (a missing one too) is refused\n"+
			"in one line, and anything else mounted there left alone.")
	lazy := c.fs.Bool("lazy", false, "detach now, finish when the last user lets go")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	mnt, err := realPath(rest[0])
	if err != nil {
		return c.fail(err)
	}
	e, ok, err := mountedAt(mnt)
	switch {
	case err != nil:
		// No mount table to check against: let umount(2) or fusermount say.
	case !ok:
		if _, err := os.Lstat(mnt); err != nil {
			// "X is not a sessfs mount: no such file or directory", in
			// the words of the other refusals, not lstat's.
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return c.fail(fmt.Errorf("%s is not a sessfs mount: %w", rest[0], err))
		}
		return c.fail(fmt.Errorf("%s is not a sessfs mount: nothing is mounted there", rest[0]))
	case e.FSType != fsnode.FSType:
		return c.fail(fmt.Errorf("%s is not a sessfs mount: it is %s (unmount that with umount)", rest[0], mountDesc(e)))
	}
	if err := unmount(mnt, *lazy); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// unmount tries umount(2) (root), then fusermount3 and fusermount.
func unmount(mnt string, lazy bool) error {
	flags := 0
	if lazy {
		flags = syscall.MNT_DETACH
	}
	err := syscall.Unmount(mnt, flags)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EBUSY) {
		return fmt.Errorf("%s is busy: close the files and shells that use it, or use --lazy", mnt)
	}
	for _, prog := range []string{"fusermount3", "fusermount"} {
		if _, lerr := exec.LookPath(prog); lerr != nil {
			continue
		}
		a := []string{"-u"}
		if lazy {
			a = append(a, "-z")
		}
		out, ferr := exec.Command(prog, append(a, mnt)...).CombinedOutput()
		if ferr == nil {
			return nil
		}
		// One line, whatever the program printed.
		return fmt.Errorf("%s: %s", prog, strings.Join(strings.Fields(string(out)), " "))
	}
	return fmt.Errorf("unmount %s: %w", mnt, err)
}
