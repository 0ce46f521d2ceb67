package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// `cat branches/x/since-fork.jsonl > branches/main/append` is an
// append-merge with plain tools: main gains x's own messages, byte for
// byte as x has them, and doing it again adds nothing, because the lines
// carry their ids and the store keeps an id once.
func TestSinceForkShellMerge(t *testing.T) {
	m, dir := appendFixture(t)
	run(t, "mkdir", dir+"/branches/x")
	sh(t, `printf '%s\n' '{"role":"user","content":"only on x"}' '{"role":"assistant","content":"x answers"}' > "$1/branches/x/append"`, dir)
	sh(t, `echo only-on-main >> "$1/append"`, dir)

	since := cat(t, dir+"/branches/x/since-fork.jsonl")
	xLines := lines(cat(t, dir+"/branches/x/messages.jsonl"))
	if got := lines(since); len(got) != 2 || got[0] != xLines[len(xLines)-2] || got[1] != xLines[len(xLines)-1] {
		t.Fatalf("since-fork.jsonl = %q, want x's last two lines of messages.jsonl", since)
	}
	if n := statSize(t, dir+"/branches/x/since-fork.jsonl"); n != int64(len(since)) {
		t.Fatalf("since-fork.jsonl: stat says %d bytes, cat read %d", n, len(since))
	}

	before := cat(t, dir+"/messages.jsonl")
	sh(t, `cat "$1/branches/x/since-fork.jsonl" > "$1/branches/main/append"`, dir)
	after := cat(t, dir+"/messages.jsonl")
	if after != before+since {
		t.Fatalf("after the merge main's messages.jsonl should be what it was, then since-fork.jsonl:\n got %q\nwant %q", trunc(after), trunc(before+since))
	}
	sh(t, `cat "$1/branches/x/since-fork.jsonl" > "$1/branches/main/append"`, dir)
	if again := cat(t, dir+"/messages.jsonl"); again != after {
		t.Fatalf("merging again changed main:\n got %q\nwant %q", trunc(again), trunc(after))
	}
	// The store agrees, and x is untouched.
	got := contents(storeMessages(t, m.StoreDir, "s", "main"))
	if tail := strings.Join(got[len(got)-3:], "|"); tail != "only-on-main|only on x|x answers" {
		t.Errorf("store: main ends %q", tail)
	}
	if x := cat(t, dir+"/branches/x/messages.jsonl"); x != strings.Join(xLines, "\n")+"\n" {
		t.Errorf("x changed by the merge")
	}
}

// branches.txt draws the fork tree as `sessfs branches --tree` does, and
// a branch made with mkdir shows at the next read, at its exact size.
func TestBranchesTxt(t *testing.T) {
	m, dir := appendFixture(t)
	run(t, "mkdir", dir+"/branches/x")
	sh(t, `echo on-x >> "$1/branches/x/append"`, dir)
	run(t, "mkdir", dir+"/turns/1/fork/y")
	tree := cat(t, dir+"/branches.txt")
	n := len(conversation)
	want := fmt.Sprintf("main: %d messages\n├─ x: %d messages, forked at %d\n└─ y: 2 messages, forked at 2\n", n, n+1, n)
	if tree != want {
		t.Fatalf("branches.txt =\n%s\nwant\n%s", tree, want)
	}
	if got := cli(t, m.StoreDir, "branches", "--tree", "s"); got != tree {
		t.Errorf("sessfs branches --tree =\n%s\nbranches.txt =\n%s", got, tree)
	}
	if size := statSize(t, dir+"/branches.txt"); size != int64(len(tree)) {
		t.Errorf("branches.txt: stat says %d bytes, cat read %d", size, len(tree))
	}
	run(t, "mkdir", dir+"/branches/z")
	if got := cat(t, dir+"/branches.txt"); !strings.HasSuffix(got, fmt.Sprintf("└─ z: %d messages, forked at %d\n", n, n)) {
		t.Errorf("branches.txt after mkdir branches/z:\n%s", got)
	}
}

// A merge made with the CLI beside a live mount shows in it: a replace
// moves x's name to the new history and lists the old one beside it, and
// every message either branch had is still read through the mount.
func TestMergeCLIWhileMounted(t *testing.T) {
	m, dir := appendFixture(t)
	run(t, "mkdir", dir+"/turns/1/fork/x")
	sh(t, `echo on-x >> "$1/branches/x/append"`, dir)
	oldX := cat(t, dir+"/branches/x/messages.jsonl")
	mainMsgs := cat(t, dir+"/messages.jsonl")

	out := cli(t, m.StoreDir, "merge", "--strategy", "replace", "s", "main", "x")
	if !strings.Contains(out, `"x-before-merge-1"`) {
		t.Fatalf("sessfs merge printed %q", out)
	}
	eventually(t, 3*time.Second, "the replace shows in the mount", func() (bool, string) {
		got := strings.Join(ls(t, dir+"/branches"), " ")
		x := cat(t, dir+"/branches/x/messages.jsonl")
		return got == "main x x-before-merge-1" && x == mainMsgs, got + ": x has " + trunc(x)
	})
	if kept := cat(t, dir+"/branches/x-before-merge-1/messages.jsonl"); kept != oldX {
		t.Errorf("x-before-merge-1 = %q, want x as it was %q", trunc(kept), trunc(oldX))
	}
	// x's own messages, since its fork from main after turn 1, are main's.
	if since := cat(t, dir+"/branches/x/since-fork.jsonl"); !strings.HasSuffix(mainMsgs, since) || len(lines(since)) != len(lines(mainMsgs))-2 {
		t.Errorf("x/since-fork.jsonl after the replace = %q", trunc(since))
	}
	tree := cat(t, dir+"/branches.txt")
	n := len(conversation)
	// The new x is forked at the common ancestor, which is in main: it
	// hangs off main, beside the history it replaced.
	want := fmt.Sprintf("main: %d messages\n├─ x: %d messages, forked at 2\n└─ x-before-merge-1: 3 messages, forked at 2\n", n, n)
	if tree != want {
		t.Errorf("branches.txt =\n%s\nwant\n%s", tree, want)
	}
}
