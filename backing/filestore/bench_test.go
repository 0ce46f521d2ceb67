package filestore_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// Run with: go test -run '^$' -bench 'Fork|Append' ./backing/

var forkSizes = []int{1000, 10000, 100000, 1000000}

// BenchmarkFork forks the default branch at its head. A fork copies no
// message, so its time and the bytes it adds must not grow with the length
// of the branch: compare the four sizes. (bytes/fork moves by a byte or so
// between sizes: the fork point's offset has more digits.) Compare sizes at
// similar b.N only: each fork rereads every branch file of the session (the
// branch list cache is dropped when the branches folder changes), so ns/op
// grows with the number of forks a round has made, whatever the log length.
func BenchmarkFork(b *testing.B) {
	logs := newLogCache(b)
	for _, n := range forkSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			st, s := benchSession(b, logs, n)
			before := storeSize(b, st.Root())
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.Fork("", backing.Head, fmt.Sprintf("f%d", i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(storeSize(b, st.Root())-before)/float64(b.N), "bytes/fork")
		})
	}
}

// BenchmarkForkAtTurn forks in the middle of a branch. Unlike a fork at the
// head, it must find the byte offset of a message, so the first one after
// opening the store builds the log's offset index: each iteration measures
// that cold case (a fresh Store, opened outside the timer), which does grow
// with the log.
func BenchmarkForkAtTurn(b *testing.B) {
	logs := newLogCache(b)
	for _, n := range []int{1000, 1000000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			st, s := benchSession(b, logs, n)
			// Every message of the generated log is a user message, so each
			// starts a turn: the middle turn ends after n/2 messages.
			at := n / 2
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				cold, err := filestore.Open(st.Root(), filestore.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if s, err = cold.Session("bench"); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := s.Fork("", at, fmt.Sprintf("f%d", i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// logCache writes each generated log once per benchmark and hands out hard
// links to it, so the 1M-message log is not rewritten for every b.N round.
type logCache struct {
	b    *testing.B
	dir  string
	logs map[int]string
}

func newLogCache(b *testing.B) *logCache {
	return &logCache{b: b, dir: b.TempDir(), logs: map[int]string{}}
}

// get returns the path of a log of n messages, writing it on first use.
func (c *logCache) get(n int) string {
	if p, ok := c.logs[n]; ok {
		return p
	}
	p := filepath.Join(c.dir, fmt.Sprintf("log-%d.jsonl", n))
	if err := writeLog(p, n); err != nil {
		c.b.Fatal(err)
	}
	c.logs[n] = p
	return p
}

// writeLog writes n messages straight into a log file, far faster than n
// appends (one fsync, no validation): this is setup, not what is measured.
func writeLog(path string, n int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		// A uuid-shaped id with the counter in its last group.
		fmt.Fprintf(w, `{"id":"01900000-0000-7000-8000-%012d","ts":"2026-01-01T00:00:00Z","role":"user","content":"message %d"}`+"\n", i, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	// Flush the data now: left dirty, it would be written back by the first
	// fsync of the timed loop (ext4 commits ordered data with the journal),
	// and a fork of a 1M-message branch would look 100 times slower.
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// benchSession makes a store in a fresh folder with session "bench" whose
// default branch holds n messages, and returns it opened afresh, so that no
// index or branch list is warm when the timer starts.
func benchSession(b *testing.B, logs *logCache, n int) (*filestore.Store, backing.Session) {
	b.Helper()
	src := logs.get(n)
	root := filepath.Join(b.TempDir(), "store")
	st, err := filestore.Open(root, filestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s, _, err := st.Create("bench", backing.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	main, err := s.Branch("")
	if err != nil {
		b.Fatal(err)
	}
	// Replace the empty log by the generated one: a hard link when the
	// folders share a filesystem (they do under one TMPDIR), else a copy.
	dst := filepath.Join(s.(*filestore.Session).Dir(), "logs", main.ID+".jsonl")
	if err := os.Remove(dst); err != nil {
		b.Fatal(err)
	}
	if err := os.Link(src, dst); err != nil {
		if err := copyFile(src, dst); err != nil {
			b.Fatal(err)
		}
	}
	if st, err = filestore.Open(root, filestore.Options{}); err != nil {
		b.Fatal(err)
	}
	if s, err = st.Session("bench"); err != nil {
		b.Fatal(err)
	}
	return st, s
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// storeSize is the total size of the regular files under root.
func storeSize(b *testing.B, root string) int64 {
	b.Helper()
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return total
}

// benchMessage is a compact message of exactly 300 bytes. sessfs adds an id
// and a timestamp to it; the native baselines write it as it is.
var benchMessage = func() []byte {
	head, tail := `{"role":"user","content":"`, `"}`
	return []byte(head + strings.Repeat("x", 300-len(head)-len(tail)) + tail)
}()

// writers is how many goroutines the 8-writer benchmarks run: at least 8,
// whatever GOMAXPROCS is (RunParallel starts parallelism × GOMAXPROCS).
func writersParallelism() int {
	procs := runtime.GOMAXPROCS(0)
	return (8 + procs - 1) / procs
}

// BenchmarkAppend puts the cost of a sessfs append next to the floor: the
// same bytes written to a plain file, with and without fsync, by one writer
// and by eight at once.
func BenchmarkAppend(b *testing.B) {
	msgs := [][]byte{benchMessage}
	line := append(append([]byte{}, benchMessage...), '\n')

	b.Run("sessfs-fsync", func(b *testing.B) {
		s := appendSession(b, filestore.Options{})
		b.ResetTimer()
		for range b.N {
			if err := s.AppendID("", msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sessfs-nosync", func(b *testing.B) {
		s := appendSession(b, filestore.Options{Sync: filestore.SyncNone})
		b.ResetTimer()
		for range b.N {
			if err := s.AppendID("", msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("native-write+fsync", func(b *testing.B) {
		f := nativeFile(b)
		b.ResetTimer()
		for range b.N {
			if _, err := f.Write(line); err != nil {
				b.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("native-write", func(b *testing.B) {
		f := nativeFile(b)
		b.ResetTimer()
		for range b.N {
			if _, err := f.Write(line); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Eight writers on one session: concurrent appends share writes and
	// fsyncs (group commit), so ns/op should fall well below sessfs-fsync.
	b.Run("sessfs-fsync-8writers", func(b *testing.B) {
		s := appendSession(b, filestore.Options{})
		b.SetParallelism(writersParallelism())
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := s.AppendID("", msgs); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	// The naive logger the group commit competes with: eight writers share
	// one file, a mutex keeps lines whole, and each fsyncs after its write.
	b.Run("native-8writers-fsync", func(b *testing.B) {
		f := nativeFile(b)
		var mu sync.Mutex
		b.SetParallelism(writersParallelism())
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				mu.Lock()
				_, err := f.Write(line)
				mu.Unlock()
				if err == nil {
					err = f.Sync()
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// appendSession makes a fresh store and session in the benchmark's temp
// folder; the native files live in one too, so both hit the same disk.
func appendSession(b *testing.B, opts filestore.Options) backing.Session {
	b.Helper()
	st, err := filestore.Open(filepath.Join(b.TempDir(), "store"), opts)
	if err != nil {
		b.Fatal(err)
	}
	s, _, err := st.Create("bench", backing.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// nativeFile opens a fresh log file for appending, closed after the round.
func nativeFile(b *testing.B) *os.File {
	b.Helper()
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "native.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			b.Error(err)
		}
	})
	return f
}
