package filestore

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lowPriority has the calling goroutine's work yield the CPU to
// everything else of the machine: it locks the goroutine to its thread
// and sets that thread's nice value to backgroundNice. It is for the work
// a mount does of its own accord (building and catching up the search
// index, sealing logs), which would otherwise take both cores of a small
// machine from the requests of the user who is reading meanwhile (a warm
// cat of a long transcript took 5-24 ms during an index build, 4 ms
// after). Call it first thing in a goroutine that ends when the work
// does: the thread is never unlocked, so it ends with the goroutine
// rather than go back to the runtime's pool with its low priority.
//
// The Go scheduler does not know of nice values: a goroutine of the
// user's requests still needs a free P while the background holds its
// own, which the mount leaves it (cmd/sessfs raises GOMAXPROCS).
func lowPriority() {
	runtime.LockOSThread()
	// Best effort: a thread that keeps its priority only works as before.
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), backgroundNice)
}

// backgroundNice is the nice value of background work: the lowest.
const backgroundNice = 19
