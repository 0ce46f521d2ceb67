package integration

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// An append through the mount is visible to stat and read as soon as the
// write (JSON) or close (text) returns: the same shell reads it next. The
// kernel has the file's old size cached beforehand (ls -l, a stat, a cat,
// tail -f's fstat all do that), so a size cached for a second would hide
// the new bytes.
func TestFreshAfterMountAppend(t *testing.T) {
	m, dir := appendFixture(t)
	run(t, "mkdir", m.P("empty"))
	for _, c := range []struct{ what, before, dir string }{
		{"stat before", "stat", dir},
		{"cat before", "cat", dir},
		{"ls -l before", "ls", dir},
		{"empty session, cat before", "cat", m.P("empty")},
	} {
		for _, file := range []string{"transcript.md", "messages.jsonl"} {
			path := c.dir + "/" + file
			switch c.before {
			case "stat":
				statSize(t, path)
			case "cat":
				cat(t, path)
			case "ls":
				run(t, "ls", "-l", c.dir)
			}
			word := strings.ReplaceAll(fmt.Sprintf("fresh-%s-%s", c.what, file), " ", "-")
			out := sh(t, `echo "$2" >> "$1/append" && stat -c 'SIZE %s' "$1/$3" && cat "$1/$3"`, c.dir, word, file)
			size, body, _ := strings.Cut(strings.TrimPrefix(out, "SIZE "), "\n")
			if !strings.Contains(body, word) {
				t.Errorf("%s: cat %s right after echo >> append lacks the message (%d bytes read)", c.what, file, len(body))
			}
			if size != fmt.Sprint(len(body)) {
				t.Errorf("%s: stat %s right after echo >> append says %s bytes; cat then read %d", c.what, file, size, len(body))
			}
		}
	}
	// The tightest loop a harness makes: stat, append one JSON line, stat
	// and read again, all in one process within a millisecond. A size the
	// kernel may keep even for one clock tick shows here.
	out := wantOK(t, "stat, write, stat and read, 20 times", `
stale_stat = stale_read = 0
for i in range(20):
    before = os.stat(A[1]).st_size
    fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
    word = "loop-%d-end" % i
    os.write(fd, (json.dumps({"role": "user", "content": word}) + "\n").encode())
    after = os.stat(A[1]).st_size
    data = open(A[1], "rb").read()
    os.close(fd)
    stale_stat += after == before
    stale_read += word.encode() not in data
print(stale_stat, stale_read)
`, dir+"/append", dir+"/transcript.md")
	if out != "0 0" {
		f := strings.Fields(out)
		t.Errorf("stat; write a JSON line to append; stat; read transcript.md: of 20 rounds, %s showed the old size and %s read no new message; want 0 and 0", f[0], f[1])
	}

	// JSON mode: visible when the write returns, the writer still holding
	// append open.
	statSize(t, dir+"/transcript.md")
	out = wantOK(t, "visible before close", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
os.write(fd, (A[1] + "\n").encode())
data = open(A[2], "rb").read()
print(len(data), os.stat(A[2]).st_size, b"held-open-3" in data)
os.close(fd)
`, dir+"/append", jsonMsg("user", "held-open-3"), dir+"/transcript.md")
	if f := strings.Fields(out); len(f) != 3 || f[0] != f[1] || f[2] != "True" {
		t.Errorf("a JSON append read back while append is still open: bytes read, stat size, message there = %q; want equal sizes and True", out)
	}
}

// An append by another process writing the store (the CLI) shows in the
// mounted transcript within about a second.
func TestFreshAfterCLIAppend(t *testing.T) {
	m, dir := appendFixture(t)
	path := dir + "/transcript.md"
	before := cat(t, path) // cached by the kernel now
	statSize(t, path)
	cli(t, m.StoreDir, "append", "s", "cli-fresh-word")
	eventually(t, 2*time.Second, "the CLI's append in cat transcript.md", func() (bool, string) {
		got := cat(t, path)
		return strings.Contains(got, "cli-fresh-word"), fmt.Sprintf("%d bytes, was %d", len(got), len(before))
	})
	eventually(t, 2*time.Second, "stat size of transcript.md matching cat", func() (bool, string) {
		got, size := cat(t, path), statSize(t, path)
		return int64(len(got)) == size, fmt.Sprintf("cat %d bytes, stat %d", len(got), size)
	})
	// The same for the other files that grow.
	eventually(t, 2*time.Second, "the CLI's append in messages.jsonl and turns/", func() (bool, string) {
		a := cat(t, dir+"/messages.jsonl")
		b := ls(t, dir+"/turns")
		return strings.Contains(a, "cli-fresh-word") && contains(b, "3"), fmt.Sprintf("turns %q", b)
	})
	if got := cat(t, dir+"/turns/3/transcript.md"); !strings.Contains(got, "cli-fresh-word") {
		t.Errorf("turns/3/transcript.md = %q, want the CLI's message", got)
	}
}

// tail -f transcript.md follows appends, by this mount and by the CLI.
func TestFreshTailF(t *testing.T) {
	m, dir := appendFixture(t)
	path := dir + "/transcript.md"
	ctx, cancel := context.WithCancel(context.Background())
	tail := exec.CommandContext(ctx, "tail", "-n", "3", "-f", path)
	seen := &lockedBuffer{}
	tail.Stdout = seen
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	// Stop tail before the mount goes (cleanups run last first).
	t.Cleanup(func() { cancel(); tail.Wait() })

	// tail has opened the file once it printed the last lines.
	eventually(t, 5*time.Second, "tail -f printing the end of the transcript", func() (bool, string) {
		return strings.Contains(seen.String(), "tail -c"), seen.String()
	})
	sh(t, `echo "tail-mount-word" >> "$1/append"`, dir)
	eventually(t, 3*time.Second, "tail -f showing an append through the mount", func() (bool, string) {
		return strings.Contains(seen.String(), "tail-mount-word"), seen.String()
	})
	cli(t, m.StoreDir, "append", "--role", "assistant", "s", "tail-cli-word")
	eventually(t, 3*time.Second, "tail -f showing an append by the CLI", func() (bool, string) {
		return strings.Contains(seen.String(), "tail-cli-word"), seen.String()
	})
	// What tail printed is the end of the file as cat reads it, and stat
	// agrees with cat.
	full := cat(t, path)
	if got := seen.String(); !strings.HasSuffix(full, got) {
		t.Errorf("tail -f output is not the end of the transcript:\ntail: %q\ncat end: %q", got, full[max(0, len(full)-len(got)):])
	}
	if int64(len(full)) != statSize(t, path) {
		t.Errorf("stat %d bytes, cat %d", statSize(t, path), len(full))
	}
}

// The kernel keeps a rendering's pages while it grows: after an append the
// file reads exactly as the store renders it, no stale page (the old last
// one, zero-filled past the old end) and no byte missing. An append through
// this mount shows at once; one by the CLI within the attribute timeout,
// and until then the file reads as it was, a prefix of the new one.
func TestCachedPagesAfterGrowth(t *testing.T) {
	m, dir := appendFixture(t)
	path := dir + "/transcript.md"
	for i := range 20 {
		cat(t, path) // fill the page cache
		if i%2 == 0 {
			sh(t, `echo "growth $2 $(printf '%0300d' 0)" >> "$1/append"`, dir, fmt.Sprint(i))
			got, want := cat(t, path), cli(t, m.StoreDir, "show", "s")
			if got != want {
				t.Fatalf("round %d: transcript.md through the mount (%d bytes, NULs: %v) differs from sessfs show (%d bytes)",
					i, len(got), strings.Contains(got, "\x00"), len(want))
			}
			continue
		}
		cli(t, m.StoreDir, "append", "s", fmt.Sprintf("growth %d from the CLI", i))
		want := cli(t, m.StoreDir, "show", "s")
		eventually(t, 3*time.Second, "the mount showing an append by the CLI", func() (bool, string) {
			got := cat(t, path)
			// The header may still say the minute before; below it, the
			// file is the old one or the new one, never a mix.
			if !strings.HasPrefix(transcriptBody(t, want), transcriptBody(t, got)) {
				t.Fatalf("round %d: transcript.md through the mount (%d bytes, NULs: %v) is not a prefix of sessfs show (%d bytes)",
					i, len(got), strings.Contains(got, "\x00"), len(want))
			}
			return got == want, fmt.Sprintf("%d of %d bytes", len(got), len(want))
		})
	}
	// A header that changes in place (a title of the same length, as the
	// last-activity minute does) shows within the attribute timeout, as
	// any change to meta.json does, and the pages below it, kept, are
	// still right.
	for _, title := range []string{"Title AAAA", "Title BBBB"} {
		cat(t, path)
		wantOK(t, "edit meta.json", pyEditMeta, m.P("s", "meta.json"), `{"title": "`+title+`"}`)
		want := cli(t, m.StoreDir, "show", "s")
		eventually(t, 3*time.Second, "transcript.md showing the title "+title, func() (bool, string) {
			got := cat(t, path)
			return got == want, trunc(got)
		})
	}
}

// One write can end a turn and start the next: the ended turn's files are
// told their last size before the write returns, like the branch's.
func TestTurnEndedByOneWrite(t *testing.T) {
	m, dir := appendFixture(t)
	turns := strings.Fields(sh(t, `ls "$1/turns"`, dir))
	last := turns[len(turns)-1]
	path := dir + "/turns/" + last + "/transcript.md"
	before := statSize(t, path) // the kernel now caches it
	sh(t, `printf '%s\n%s\n' "$2" "$3" >> "$1/append"`, dir,
		`{"role":"assistant","content":"the end of this turn, written with the next question"}`,
		`{"role":"user","content":"the next question"}`)
	want := cli(t, m.StoreDir, "show", "--turn", last, "s")
	if got := statSize(t, path); got != int64(len(want)) || got == before {
		t.Errorf("turns/%s/transcript.md right after the write: stat %d bytes (was %d), sessfs show --turn: %d", last, got, before, len(want))
	}
}
