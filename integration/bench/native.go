package main

// The operations each row times, on the mount and on the native floor it is
// compared with: the same code runs on both sides.

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// line300 is a ~300-byte JSON message line.
var line300 = func() []byte {
	content := strings.Repeat("the quick brown fox jumps over the lazy dog ", 6)[:260]
	return []byte(`{"role":"user","content":"` + content + `"}` + "\n")
}()

// appendLoop writes line300 ops times to f, with an fsync after each
// write when sync is set, and returns the time per write.
func appendLoop(f *os.File, ops int, sync bool) time.Duration {
	t0 := time.Now()
	for range ops {
		must1(f.Write(line300))
		if sync {
			must(f.Sync())
		}
	}
	return time.Since(t0) / time.Duration(ops)
}

// readAll reads the file at path to its end and returns its size.
func readAll(path string) int64 {
	f := must1(os.Open(path))
	defer f.Close()
	buf := make([]byte, 128<<10)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(k)
		if err == io.EOF {
			return n
		}
		must(err)
	}
}

// treeBytes is the apparent size of every file under root.
func treeBytes(root string) int64 {
	var n int64
	filepath.Walk(root, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// lsL times `ls -l path`, output discarded.
func lsL(path string) float64 {
	cmd := exec.Command("ls", "-l", path)
	cmd.Stdout, cmd.Stderr = nil, nil // /dev/null
	t0 := time.Now()
	must(cmd.Run())
	return ms(time.Since(t0))
}
