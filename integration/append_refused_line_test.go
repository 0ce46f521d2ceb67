package integration

import (
	"strconv"
	"strings"
	"testing"
)

// A line the kernel splits (max_write is 1 MiB) and the writer re-sends
// after a short write fails whole: the kernel reports the pieces before the
// refused one as written, the writer sends the rest again, and that rest,
// up to the line's newline, fails the same way instead of being taken as a
// line of its own. The line here is invalid only as a whole: after its
// first MiB it reads as a valid message.
const resentLine = `
head = b'{"a":'
tail = b'{"role":"user","content":"the re-sent tail"}\n'
def line(size):
    return head + b" " * (size - len(head) - len(tail)) + tail
`

// Python's BufferedWriter (open(…, "wb")) loops on short writes as fwrite
// does; a rest it can buffer (under 8 KiB) goes at close.
func TestAppendRefusedLineBufferedWriter(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	for _, size := range []int{3 << 19, 1<<20 + 4000} {
		got, printed := py(t, resentLine+`
f = open(A[0], "wb")
try:
    f.write(line(int(A[1])))
except OSError as e:
    print("write", errno.errorcode[e.errno])
f.close()
`, dir+"/append", strconv.Itoa(size))
		if got != "ERR EINVAL" && printed != "write EINVAL" {
			t.Errorf("a %d-byte invalid line through BufferedWriter: %s (printed %q), want EINVAL", size, got, printed)
		}
	}
	// The next line on a new handle is taken.
	sh(t, `printf '%s\n' "$2" >> "$1/append"`, dir, jsonMsg("user", "after"))
	wantAdded(t, m, dir, before, user("after"))
}

// A C-like loop: write(2) the rest again after each short write, until all
// is written or a write fails.
func TestAppendRefusedLineWriteLoop(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	out := wantOK(t, "write loop", resentLine+`
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
data, off, res = line(3 << 19), 0, "all written"
while off < len(data):
    try:
        off += os.write(fd, data[off:])
    except OSError as e:
        res = errno.errorcode[e.errno] + " after %d bytes" % off
        break
os.close(fd)
# The handle goes on: the next line is its own.
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, (json.dumps({"role": "user", "content": "after"}) + "\n").encode())
os.close(fd)
print(res)
`, dir+"/append")
	if !strings.HasPrefix(out, "EINVAL") {
		t.Errorf("a 1.5 MiB invalid line in a write loop: %q, want EINVAL", out)
	}
	wantAdded(t, m, dir, before, user("after"))
}

// A line just over the 64 MiB limit whose newline comes in the last piece
// fails with EFBIG, and its re-sent tail with it, not EINVAL as a line of
// its own.
func TestAppendTooLargeLineResent(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	out := wantOK(t, "write loop", `
pre = b'{"role":"user","content":"'
data = pre + b"x" * ((64 << 20) - len(pre)) + b'"}\n'
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
off, res = 0, "all written"
while off < len(data):
    try:
        off += os.write(fd, data[off:])
    except OSError as e:
        res = errno.errorcode[e.errno]
        break
os.close(fd)
print(res)
`, dir+"/append")
	if out != "EFBIG" {
		t.Errorf("a line of 64 MiB and 3 bytes: %q, want EFBIG", out)
	}
	wantAdded(t, m, dir, before)
}

// A meta.json over its 1 MiB limit fails with EFBIG at the write and at
// close (not EINVAL for the part that fitted), and meta.json is unchanged.
func TestMetaTooLarge(t *testing.T) {
	m := newMount(t)
	s := newSession(t, m.Store, "s", "before")
	out := wantOK(t, "2 MiB meta.json", `
doc = json.dumps({"id": A[1], "title": "after", "pad": "x" * (2 << 20)})
f = open(A[0], "w")
try:
    f.write(doc)
    f.flush()
except OSError as e:
    print("write", errno.errorcode[e.errno])
try:
    f.close()
except OSError as e:
    print("close", errno.errorcode[e.errno])
`, m.P("s", "meta.json"), s.ID())
	if out != "write EFBIG\nclose EFBIG" {
		t.Errorf("a 2 MiB meta.json: %q, want EFBIG at the write and at close", out)
	}
	if got := cat(t, m.P("s", "meta.json")); !strings.Contains(got, `"title": "before"`) {
		t.Errorf("meta.json changed: %s", trunc(got))
	}
}
