package filestore

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// threadNice is the nice value of the calling goroutine's thread, from
// /proc/thread-self/stat (its 19th field).
func threadNice(t *testing.T) int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.Atoi(f[16]) // fields 3.. start at f[0]
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBackgroundBuildYields: the index build a mount starts of its own
// accord (Options.Indexing) runs on a thread of the lowest priority, so a
// user's requests meanwhile get the CPU first; a command's build, which
// its user waits for, keeps the process's.
func TestBackgroundBuildYields(t *testing.T) {
	base := threadNice(t)
	for _, indexing := range []bool{true, false} {
		root := t.TempDir()
		st, _ := openLogged(t, root, Options{})
		appendTurns(t, newSession(t, st, "a"), "", "a", 1)
		nice := make(chan int, 2)
		st, _ = openLogged(t, root, Options{Indexing: indexing, Building: func(done, total int) {
			if done == total {
				nice <- threadNice(t)
			}
		}})
		if !indexing {
			hitsOf(t, st, "aq1")
		}
		want := base
		if indexing {
			want = backgroundNice
		}
		if got := <-nice; got != want {
			t.Errorf("Indexing %v: the build ran at nice %d, want %d", indexing, got, want)
		}
	}
}
