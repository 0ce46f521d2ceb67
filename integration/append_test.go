package integration

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// appendFixture is a mount with session s holding one two-turn
// conversation; it returns the mount and s's folder.
func appendFixture(t *testing.T) (*mount, string) {
	t.Helper()
	m := newMount(t)
	newSession(t, m.Store, "s", "", conversation...)
	return m, m.P("s")
}

// wantAdded checks that the session's messages are before plus exactly
// added (role and content), through the mount and in the store.
func wantAdded(t *testing.T, m *mount, dir string, before []msg, added ...msg) {
	t.Helper()
	got := messagesOf(t, dir)
	check := func(where string, got []msg) {
		t.Helper()
		if len(got) != len(before)+len(added) {
			t.Errorf("%s: %d messages, want %d + %d; contents now %q", where, len(got), len(before), len(added), contents(got))
			return
		}
		for i, a := range added {
			g := got[len(before)+i]
			if g.role() != a.role() || g.content() != a.content() {
				t.Errorf("%s: added message %d is role %q content %q, want role %q content %q",
					where, i, g.role(), trunc(g.content()), a.role(), trunc(a.content()))
			}
		}
	}
	check("messages.jsonl through the mount", got)
	check("the store", storeMessages(t, m.StoreDir, "s", ""))
}

func user(content string) msg { return msg{"role": "user", "content": content} }

// `echo hi >> append` adds one user message "hi": text mode, one trailing
// newline dropped.
func TestAppendEchoAppend(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	sh(t, `echo hi >> "$1/append"`, dir)
	wantAdded(t, m, dir, before, user("hi"))
}

// `echo hi > append` opens with O_TRUNC, which must work and add the same.
func TestAppendEchoTruncate(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	sh(t, `echo hi > "$1/append"`, dir)
	wantAdded(t, m, dir, before, user("hi"))
	// The same through branches/main/append.
	before = messagesOf(t, dir)
	sh(t, `echo again > "$1/branches/main/append"`, dir)
	wantAdded(t, m, dir, before, user("again"))
}

// printf of two JSON lines adds two messages, roles and extra fields kept.
func TestAppendJSONLines(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	sh(t, `printf '%s\n%s\n' "$2" "$3" >> "$1/append"`, dir,
		`{"role":"user","content":"first line","mine":42}`, `{"role":"assistant","content":"second line"}`)
	wantAdded(t, m, dir, before, user("first line"), msg{"role": "assistant", "content": "second line"})
	got := messagesOf(t, dir)
	if v, _ := got[len(before)]["mine"].(float64); v != 42 {
		t.Errorf("an unknown field was not kept: %v", got[len(before)])
	}
	// Leading blank lines do not change the mode.
	before = got
	sh(t, `printf '\n  %s\n' "$2" > "$1/append"`, dir, `{"role":"user","content":"after blanks"}`)
	wantAdded(t, m, dir, before, user("after blanks"))
}

// One invalid line among valid ones fails the whole write with EINVAL and
// adds nothing; the handle then still takes valid lines.
func TestAppendInvalidLineRefusesWrite(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	batch := jsonMsg("user", "valid one") + "\n" + `{"role":"user","content":` + "\n" + jsonMsg("user", "valid two") + "\n"
	got, printed := py(t, `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, A[1].encode())
print("write accepted")
`, dir+"/append", batch)
	if got != "ERR EINVAL" {
		t.Errorf("write of a batch with an invalid line: %s (%s), want ERR EINVAL", got, printed)
	}
	wantAdded(t, m, dir, before)

	// A line without a role, and one that is not an object: EINVAL too.
	for _, bad := range []string{`{"content":"no role"}`, `["not","an","object"]`, `{"role":"user"}`} {
		wantErrno(t, "EINVAL", "write of "+bad, `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, (A[1] + "\n" + A[2] + "\n").encode())
`, dir+"/append", jsonMsg("user", "valid"), bad)
	}
	wantAdded(t, m, dir, before)

	// After the refused write, the same open handle appends valid lines.
	out := wantOK(t, "write, refused write, write on one handle", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
try:
    os.write(fd, b'{"role":"user","content":"bad\n')
except OSError as e:
    print("first", errno.errorcode[e.errno])
os.write(fd, (A[1] + "\n").encode())
os.close(fd)
`, dir+"/append", jsonMsg("user", "good after bad"))
	if !strings.Contains(out, "first EINVAL") {
		t.Errorf("the invalid line was not refused with EINVAL: %q", out)
	}
	wantAdded(t, m, dir, before, user("good after bad"))
}

// A 2 MiB message written in one os.write reaches sessfs as several kernel
// write requests (max_write is 1 MiB) and is still exactly one message.
func TestAppendLargeMessage(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	out := wantOK(t, "2 MiB write", `
content = "".join("%08d" % i for i in range(2 * 1024 * 1024 // 8))
line = (json.dumps({"role": "assistant", "content": content}) + "\n").encode()
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
n = os.write(fd, line)
os.close(fd)
print(n, len(line))
`, dir+"/append")
	f := strings.Fields(out)
	if len(f) != 2 || f[0] != f[1] {
		t.Errorf("os.write returned %q, want the whole line written", out)
	}
	var b strings.Builder
	for i := range 2 * 1024 * 1024 / 8 {
		fmt.Fprintf(&b, "%08d", i)
	}
	wantAdded(t, m, dir, before, msg{"role": "assistant", "content": b.String()})
	// Sizes stay exact after a big append.
	md := cat(t, dir+"/transcript.md")
	if int64(len(md)) != statSize(t, dir+"/transcript.md") {
		t.Errorf("transcript.md: cat %d bytes, stat %d", len(md), statSize(t, dir+"/transcript.md"))
	}
}

// A text message with no trailing newline is the text as written.
func TestAppendTextNoNewline(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	sh(t, `printf 'no newline at the end' > "$1/append"`, dir)
	wantAdded(t, m, dir, before, user("no newline at the end"))
	// Several writes before one close are one message, newlines inside kept.
	before = messagesOf(t, dir)
	sh(t, `{ printf 'line one\n'; printf 'line two\n\n'; } >> "$1/append"`, dir)
	wantAdded(t, m, dir, before, user("line one\nline two\n"))
}

// A JSON line split across two os.write calls is one message; the first
// write alone adds nothing.
func TestAppendSplitLine(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	line := jsonMsg("user", "split across two writes") + "\n"
	half := len(line) / 2
	out := wantOK(t, "two halves", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, A[1].encode())
print(len(open(A[2]).read().splitlines()))
os.write(fd, A[3].encode())
print(len(open(A[2]).read().splitlines()))
os.close(fd)
`, dir+"/append", line[:half], dir+"/messages.jsonl", line[half:])
	n := len(before)
	if want := fmt.Sprintf("%d\n%d", n, n+1); out != want {
		t.Errorf("message counts after each half = %q, want %q (nothing after the first half, the message after the second)", out, want)
	}
	wantAdded(t, m, dir, before, user("split across two writes"))

	// An unterminated last line is committed at close.
	before = messagesOf(t, dir)
	sh(t, `printf '%s' "$2" >> "$1/append"`, dir, jsonMsg("assistant", "no newline, JSON"))
	wantAdded(t, m, dir, before, msg{"role": "assistant", "content": "no newline, JSON"})
}

// Opening and closing append without writing adds nothing, in any mode of
// opening; so does writing only blanks.
func TestAppendEmptyOpenClose(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	sh(t, `: >> "$1/append"; : > "$1/append"`, dir)
	wantOK(t, "open and close", `
open(A[0], "a").close()
os.close(os.open(A[0], os.O_WRONLY))
`, dir+"/append")
	wantAdded(t, m, dir, before)
	// append reads as empty.
	if got := cat(t, dir+"/append"); got != "" {
		t.Errorf("cat append = %q, want empty", got)
	}
}

// Text that is not UTF-8 fails at close with EINVAL and adds nothing.
func TestAppendInvalidUTF8(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	got, printed := py(t, `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, b"caf\xe9 latin-1\n")
print("written")
os.close(fd)
`, dir+"/append")
	if printed != "written" || got != "ERR EINVAL" {
		t.Errorf("non-UTF-8 text: write then close gave %q / %s, want the write accepted and close ERR EINVAL", printed, got)
	}
	wantAdded(t, m, dir, before)
}

// Eight processes append 50 JSON messages each to one session at once:
// four python3 writers keep append open and write each message with one
// os.write, four shells open append anew for each message. None is lost or
// duplicated, each writer's order is kept, every line is valid JSON.
func TestConcurrentAppenders(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "")
	app := m.P("s", "append")
	const writers, each = 8, 50
	pyWriter := `
import os, sys, json
path, w, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.stdin.read()  # start together: the test closes stdin when all are up
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
for i in range(n):
    line = (json.dumps({"role": "user", "content": "w%d-%d" % (w, i), "writer": w, "seq": i}) + "\n").encode()
    if os.write(fd, line) != len(line):
        sys.exit("short write")
os.close(fd)
`
	shWriter := `cat > /dev/null; i=0; while [ $i -lt $3 ]; do printf '{"role":"user","content":"w%s-%s","writer":%s,"seq":%s}\n' $2 $i $2 $i >> "$1" || exit 1; i=$((i+1)); done`
	var cmds []*exec.Cmd
	var stdins []interface{ Close() error }
	var outs []*lockedBuffer
	for w := range writers {
		var c *exec.Cmd
		if w%2 == 0 {
			c = exec.Command("python3", "-c", pyWriter, app, fmt.Sprint(w), fmt.Sprint(each))
		} else {
			c = exec.Command("sh", "-c", shWriter, "sh", app, fmt.Sprint(w), fmt.Sprint(each))
		}
		in, err := c.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out := &lockedBuffer{}
		c.Stdout, c.Stderr = out, out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stdins, outs = append(cmds, c), append(stdins, in), append(outs, out)
	}
	for _, in := range stdins {
		in.Close()
	}
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i, c := range cmds {
		wg.Go(func() { errs[i] = c.Wait() })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		for _, c := range cmds {
			c.Process.Kill()
		}
		<-done
		t.Fatal("writers did not finish in 2 minutes")
	}
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v: %s", i, err, outs[i].String())
		}
	}

	check := func(where string, got []msg) {
		t.Helper()
		if len(got) != writers*each {
			t.Errorf("%s: %d messages, want %d", where, len(got), writers*each)
		}
		next := make([]int, writers)
		seen := map[string]bool{}
		for i, g := range got {
			w, okw := g["writer"].(float64)
			s, oks := g["seq"].(float64)
			if !okw || !oks || int(w) < 0 || int(w) >= writers {
				t.Errorf("%s: message %d has no writer/seq: %v", where, i, g)
				continue
			}
			if c := g.content(); seen[c] {
				t.Errorf("%s: message %q duplicated", where, c)
			} else {
				seen[c] = true
			}
			if int(s) != next[int(w)] {
				t.Errorf("%s: writer %d: seq %d at position %d, want %d (lost or reordered)", where, int(w), int(s), i, next[int(w)])
			}
			next[int(w)] = int(s) + 1
		}
		if want := slices.Repeat([]int{each}, writers); !slices.Equal(next, want) {
			t.Errorf("%s: last seq+1 per writer = %v, want %v", where, next, want)
		}
	}
	check("messages.jsonl through the mount", messagesOf(t, m.P("s")))
	check("the store", storeMessages(t, m.StoreDir, "s", ""))
}

// A message over the store's limit (64 MiB) fails with EFBIG, in text and
// JSON mode, and nothing is appended. The writer keeps writing after short
// writes, as a careful program does: the kernel splits a write(2) into
// 1 MiB requests and reports the part before a failed one as written.
func TestAppendTooLarge(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	for _, mode := range []string{"text", "json"} {
		got, printed := py(t, `
size = 65 << 20
if A[1] == "json":
    data = b'{"role":"user","content":"' + b"x" * size + b'"}\n'
else:
    data = b"x" * size
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
err = None
try:
    off = 0
    while off < len(data):
        off += os.write(fd, data[off:off + (8 << 20)])
except OSError as e:
    err = e
    print("write failed")
try:
    os.close(fd)
except OSError as e:
    err = err or e
if err:
    raise err
`, dir+"/append", mode)
		if got != "ERR EFBIG" {
			t.Errorf("%s mode, a 65 MiB message: %s (%q), want ERR EFBIG", mode, got, printed)
		}
	}
	wantAdded(t, m, dir, before)
}

// fsync on an append handle succeeds, and does not split a text message:
// in text mode everything written before close(2) is one message.
func TestAppendFsync(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	wantOK(t, "write, fsync, write, close", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, b"part one, ")
os.fsync(fd)
os.write(fd, b"part two")
os.close(fd)
`, dir+"/append")
	wantAdded(t, m, dir, before, user("part one, part two"))

	// JSON mode: the line is committed by the write; fsync after it
	// succeeds and adds nothing more.
	before = messagesOf(t, dir)
	wantOK(t, "JSON write, fsync", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, (A[1] + "\n").encode())
os.fsync(fd)
os.close(fd)
`, dir+"/append", jsonMsg("assistant", "json then fsync"))
	wantAdded(t, m, dir, before, msg{"role": "assistant", "content": "json then fsync"})
}

// append has one inode number however often it is looked up and however
// many writers hold it open at once (each open still has a kernel node
// of its own, so writers are not queued on one inode lock), and both
// writers' messages land.
func TestAppendStableInode(t *testing.T) {
	m, dir := appendFixture(t)
	before := messagesOf(t, dir)
	a := dir + "/append"
	inos := lines(sh(t, `stat -c %i "$1"; stat -c %i "$1"; ls -i "$1" | cut -d' ' -f1`, a))
	if len(inos) != 3 || inos[0] != inos[1] || inos[1] != inos[2] {
		t.Errorf("lookups of append: inodes %q, want one number", inos)
	}
	printed := wantOK(t, "two writers at once", `
a = os.open(A[0], os.O_WRONLY | os.O_APPEND)
b = os.open(A[0], os.O_WRONLY | os.O_APPEND)
print(os.fstat(a).st_ino, os.fstat(b).st_ino, os.stat(A[0]).st_ino)
os.write(a, (A[1] + "\n").encode())
os.write(b, (A[2] + "\n").encode())
os.close(a)
os.close(b)
`, a, `{"role":"user","content":"from a"}`, `{"role":"user","content":"from b"}`)
	if f := strings.Fields(printed); len(f) != 3 || f[0] != inos[0] || f[1] != inos[0] || f[2] != inos[0] {
		t.Errorf("fstat of two open appends and stat: %q, want %s each", printed, inos[0])
	}
	wantAdded(t, m, dir, before, msg{"role": "user", "content": "from a"}, msg{"role": "user", "content": "from b"})
}
