package main

// Mounts by the sessfs binary, for -scale: the daemon is a process of its
// own, so that its RSS is its own and not the bench's.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/sessfs/sessfs/integration/mounttest"
)

// daemon is a `sessfs mount` process serving mnt.
type daemon struct {
	bin, mnt string
	cmd      *exec.Cmd
	done     chan error // the process's exit, once
}

// daemons is every daemon of this run not yet unmounted, for unmountAll
// (under mountsMu).
var daemons = map[string]*daemon{}

// readyFD is the file descriptor on which `sessfs mount` says "ready" once
// the mount is up (SESSFS_DAEMON_READY_FD, what mount --daemon uses with
// its child): the one signal that the mount serves, without polling.
const readyFD = 3

// mountDaemon mounts store on a fresh folder of the work folder with the
// sessfs binary bin, in the foreground of a child process, and returns
// once the mount is up.
func mountDaemon(c *config, bin, store string) *daemon {
	mnt := must1(os.MkdirTemp(c.work, "mnt-"))
	r, w := must2(os.Pipe())
	cmd := exec.Command(bin, "--store", store, "mount", mnt)
	cmd.Env = append(os.Environ(), "SESSFS_DAEMON_READY_FD="+strconv.Itoa(readyFD))
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		r.Close()
		must(err)
	}
	w.Close()
	d := &daemon{bin: bin, mnt: mnt, cmd: cmd, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	mountsMu.Lock()
	daemons[mnt] = d
	mountsMu.Unlock()
	// The pipe closes without "ready" if the daemon fails first.
	line, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if strings.TrimSpace(line) != "ready" {
		must(fmt.Errorf("sessfs mount %s: exited before the mount was up", mnt))
	}
	return d
}

// pid is the daemon's process id.
func (d *daemon) pid() int { return d.cmd.Process.Pid }

// unmountDaemon unmounts d's mount with sessfs umount and waits for the
// daemon to exit; after 10 s it detaches the mount and kills the daemon
// (this process's own child), so that no exit path leaves either behind.
func unmountDaemon(d *daemon) error {
	mountsMu.Lock()
	delete(daemons, d.mnt)
	mountsMu.Unlock()
	out, uerr := exec.Command(d.bin, "umount", d.mnt).CombinedOutput()
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		mounttest.ForceUnmount(d.mnt)
		d.cmd.Process.Kill()
		<-d.done
		if uerr == nil {
			uerr = fmt.Errorf("the daemon did not exit within 10 s of its unmount; killed")
		}
	}
	os.Remove(d.mnt)
	if uerr != nil {
		return fmt.Errorf("sessfs umount %s: %v %s", d.mnt, uerr, strings.TrimSpace(string(out)))
	}
	return nil
}

// unmountDaemons takes down every daemon still up, on the way out.
func unmountDaemons() {
	mountsMu.Lock()
	var all []*daemon
	for _, d := range daemons {
		all = append(all, d)
	}
	mountsMu.Unlock()
	for _, d := range all {
		if err := unmountDaemon(d); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
}

// procStatus is a field of /proc/PID/status in bytes (VmRSS, VmHWM).
func procStatus(pid int, field string) int64 {
	data := must1(os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)))
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, field+":") {
			f := strings.Fields(l)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	must(fmt.Errorf("/proc/%d/status has no %s", pid, field))
	return 0
}
