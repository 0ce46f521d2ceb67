package integration

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

// A line written in small pieces costs time in proportion to its length:
// a 64 MiB message in 4 KiB writes (as a harness streaming a tool's output
// might send it) is taken in seconds, not minutes, and stored whole. The
// pieces before the newline are what the handle does alone (it copied the
// whole line at each, 24 s for 16 MiB); the last write commits the
// message (validated and indexed by the store, linear too).
func TestAppendLongLineSmallWrites(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	const size = 64<<20 - 256 // the content: the stored message stays under 64 MiB
	out := wantOK(t, "64 MiB in 4 KiB writes", `
import hashlib, time
content = (b"0123456789abcdef" * (int(A[1]) // 16 + 1))[:int(A[1])]
data = b'{"role":"user","content":"' + content + b'"}\n'
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
t0 = time.monotonic()
for off in range(0, len(data), 4096):
    piece = data[off:off + 4096]
    if off + 4096 >= len(data):
        t1 = time.monotonic()
    if os.write(fd, piece) != len(piece):
        raise Exception("short write")
t2 = time.monotonic()
os.close(fd)
print(t1 - t0, t2 - t1, hashlib.sha256(content).hexdigest())
`, dir+"/append", fmt.Sprint(size))
	var pieces, commit float64
	var sum string
	if _, err := fmt.Sscan(out, &pieces, &commit, &sum); err != nil {
		t.Fatalf("python printed %q: %v", out, err)
	}
	t.Logf("64 MiB in 4 KiB writes: %.1f s for the pieces, %.1f s for the last (the commit)", pieces, commit)
	if pieces > 20 {
		t.Errorf("the 4 KiB pieces of a 64 MiB line took %.1f s, want a few seconds (linear in its length)", pieces)
	}
	got := storeMessages(t, m.StoreDir, "s", "")
	if len(got) != len(before)+1 {
		t.Fatalf("%d messages, want %d + 1", len(got), len(before))
	}
	c := got[len(got)-1].content()
	if stored := fmt.Sprintf("%x", sha256.Sum256([]byte(c))); len(c) != size || stored != sum {
		t.Errorf("the message stored has %d bytes (sha256 %s), want %d (%s)", len(c), stored, size, sum)
	}
}
