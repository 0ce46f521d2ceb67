package pgstore_test

import (
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

// blackhole stands between a store and its server, on a unix socket of
// its own, and can go dark: from then on it forwards nothing and answers
// nothing, new connections included, as a network partition or a host
// gone does (no refusal, no reset: only silence).
type blackhole struct {
	url  string // the database's URL through the proxy
	dark atomic.Bool
	ln   net.Listener
	mu   sync.Mutex
	open []net.Conn
}

func newBlackhole(t *testing.T, dbURL string) *blackhole {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	upstream := filepath.Join(q.Get("host"), ".s.PGSQL.5432")
	if _, err := os.Stat(upstream); err != nil {
		t.Skipf("the test server is not on a local unix socket (%v): no proxy to put before it", err)
	}
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	q.Set("host", dir)
	u.RawQuery = q.Encode()
	b := &blackhole{url: u.String(), ln: ln}
	t.Cleanup(b.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.open = append(b.open, c)
			b.mu.Unlock()
			if b.dark.Load() {
				continue // accepted, never answered
			}
			up, err := net.Dial("unix", upstream)
			if err != nil {
				c.Close()
				continue
			}
			b.mu.Lock()
			b.open = append(b.open, up)
			b.mu.Unlock()
			go b.pipe(c, up)
			go b.pipe(up, c)
		}
	}()
	return b
}

// close ends the proxy and every connection through it: the partition
// is over, and the server refuses what it is asked from here.
func (b *blackhole) close() {
	b.ln.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.open {
		c.Close()
	}
}

// pipe copies from src to dst until the proxy goes dark, then holds what
// it reads.
func (b *blackhole) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !b.dark.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestBlackholeBounded: the database stops answering at all (no refusal,
// no reset). An append fails within the store's timeout, its retries
// included, and as ErrUnavailable (EIO through a mount, which logs that
// the database did not answer); nothing hangs.
func TestBlackholeBounded(t *testing.T) {
	bh := newBlackhole(t, pgtest.URL(t))
	const timeout = 2 * time.Second
	_, s := sessionAt(t, bh.url, pgstore.Options{Timeout: timeout})
	// The partition ends before the store closes (at the test's
	// cleanup): pgx gives a connection cut by a timeout up to 15 s to
	// cancel its query, and closing the pool waits for that.
	defer bh.close()
	bh.dark.Store(true)
	for i := range 3 {
		start := time.Now()
		err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"into the dark"}`)})
		took := time.Since(start)
		t.Logf("append %d into the dark: %v after %v", i, err, took.Round(time.Millisecond))
		if err == nil {
			t.Fatalf("append %d succeeded with the database silent", i)
		}
		if took > timeout+time.Second {
			t.Errorf("append %d took %v to fail, over the timeout %v", i, took.Round(time.Millisecond), timeout)
		}
		if !errors.Is(err, backing.ErrUnavailable) {
			t.Errorf("append %d: %v, want ErrUnavailable", i, err)
		}
	}
}
