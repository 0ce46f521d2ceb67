package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// `mkdir branches/x` forks the default branch at its head; appends to x
// and to main then diverge, each visible in its own transcript only.
func TestForkMkdirBranch(t *testing.T) {
	m, dir := appendFixture(t)
	mainMD := cat(t, dir+"/transcript.md")
	run(t, "mkdir", dir+"/branches/x")
	if got := ls(t, dir+"/branches"); !slices.Equal(got, []string{"main", "x"}) {
		t.Fatalf("ls branches = %q, want [main x]", got)
	}
	// The same messages; the header names the fork and where it left main.
	xMD := cat(t, dir+"/branches/x/transcript.md")
	if transcriptBody(t, xMD) != transcriptBody(t, mainMD) {
		t.Errorf("a fresh fork's transcript differs from main's:\n got %q\nwant %q", trunc(xMD), trunc(mainMD))
	}
	if !strings.Contains(xMD, "- forked from: `main` after message ") {
		t.Errorf("a fork's header does not say where it was forked:\n%s", trunc(xMD))
	}
	if got := cat(t, dir+"/branches/x/messages.jsonl"); got != cat(t, dir+"/messages.jsonl") {
		t.Errorf("a fresh fork's messages.jsonl differs from main's")
	}

	sh(t, `echo only-on-x >> "$1/branches/x/append"`, dir)
	sh(t, `echo only-on-main >> "$1/append"`, dir)
	x := cat(t, dir+"/branches/x/transcript.md")
	mainNow := cat(t, dir+"/transcript.md")
	if !strings.Contains(x, "only-on-x") || strings.Contains(x, "only-on-main") {
		t.Errorf("branches/x/transcript.md should hold only-on-x and not only-on-main:\n%s", x)
	}
	if !strings.Contains(mainNow, "only-on-main") || strings.Contains(mainNow, "only-on-x") {
		t.Errorf("transcript.md (main) should hold only-on-main and not only-on-x:\n%s", mainNow)
	}
	if shared := transcriptBody(t, mainMD); !strings.HasPrefix(transcriptBody(t, x), shared) || !strings.HasPrefix(transcriptBody(t, mainNow), shared) {
		t.Errorf("both branches should start with the shared history")
	}
	if got := cat(t, dir+"/branches/main/transcript.md"); got != mainNow {
		t.Errorf("branches/main/transcript.md differs from the session's transcript.md")
	}
	// The store agrees.
	xs := contents(storeMessages(t, m.StoreDir, "s", "x"))
	ms := contents(storeMessages(t, m.StoreDir, "s", "main"))
	if xs[len(xs)-1] != "only-on-x" || ms[len(ms)-1] != "only-on-main" || len(xs) != len(ms) {
		t.Errorf("store: x ends %q (%d), main ends %q (%d)", xs[len(xs)-1], len(xs), ms[len(ms)-1], len(ms))
	}
	// Forking onto an existing name fails.
	wantErrno(t, "EEXIST", "mkdir branches/x again", `os.mkdir(A[0])`, dir+"/branches/x")
}

// `mkdir turns/1/fork/y` makes branch y holding exactly turn 1's messages;
// y appears under branches/ and nowhere under turns/.
func TestForkAtTurn(t *testing.T) {
	m, dir := appendFixture(t)
	turn1 := cat(t, dir+"/turns/1/messages.jsonl")
	run(t, "mkdir", dir+"/turns/1/fork/y")
	if got := ls(t, dir+"/branches"); !slices.Equal(got, []string{"main", "y"}) {
		t.Errorf("ls branches = %q, want [main y]", got)
	}
	if got := cat(t, dir+"/branches/y/messages.jsonl"); got != turn1 {
		t.Errorf("branches/y/messages.jsonl = %q, want turn 1's messages %q", got, turn1)
	}
	if got := ls(t, dir+"/turns/1/fork"); len(got) != 0 {
		t.Errorf("ls turns/1/fork = %q, want empty: a branch has one path, under branches/", got)
	}
	wantErrno(t, "ENOENT", "stat turns/1/fork/y", `os.stat(A[0])`, dir+"/turns/1/fork/y")
	if got := ls(t, dir+"/branches/y/turns"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("ls branches/y/turns = %q, want [1]", got)
	}
	if n := len(storeMessages(t, m.StoreDir, "s", "y")); n != 2 {
		t.Errorf("store: y has %d messages, want 2 (turn 1)", n)
	}
	// Main is untouched.
	if n := len(messagesOf(t, dir)); n != len(conversation) {
		t.Errorf("main has %d messages after the fork, want %d", n, len(conversation))
	}
	// A fork of another branch after one of its own turns: x gets a new
	// turn, then branches/x/turns/3/fork/z keeps all of x.
	run(t, "mkdir", dir+"/branches/x")
	sh(t, `echo third question >> "$1/branches/x/append"`, dir)
	run(t, "mkdir", dir+"/branches/x/turns/3/fork/z")
	if got, want := cat(t, dir+"/branches/z/messages.jsonl"), cat(t, dir+"/branches/x/messages.jsonl"); got != want {
		t.Errorf("branches/z (x after turn 3) = %q, want %q", got, want)
	}
	// A fork after a turn that does not exist fails.
	wantErrno(t, "ENOENT", "mkdir turns/9/fork/w", `os.mkdir(A[0])`, dir+"/turns/9/fork/w")
}

// mv renames a branch; rmdir removes one, except the default branch
// (EBUSY) and a branch others forked from (ENOTEMPTY).
func TestForkRenameAndRemove(t *testing.T) {
	m, dir := appendFixture(t)
	run(t, "mkdir", dir+"/branches/x")
	sh(t, `echo on-x >> "$1/branches/x/append"`, dir)
	run(t, "mv", dir+"/branches/x", dir+"/branches/x2")
	if got := ls(t, dir+"/branches"); !slices.Equal(got, []string{"main", "x2"}) {
		t.Errorf("after mv: ls branches = %q, want [main x2]", got)
	}
	if got := cat(t, dir+"/branches/x2/transcript.md"); !strings.Contains(got, "on-x") {
		t.Errorf("the renamed branch lost its message:\n%s", got)
	}
	wantErrno(t, "ENOENT", "stat the old name", `os.stat(A[0])`, dir+"/branches/x")
	if n := len(storeMessages(t, m.StoreDir, "s", "x2")); n != len(conversation)+1 {
		t.Errorf("store: x2 has %d messages, want %d", n, len(conversation)+1)
	}

	wantErrno(t, "EBUSY", "rmdir branches/main", `os.rmdir(A[0])`, dir+"/branches/main")
	if r := runCmd(t, "", "rmdir", dir+"/branches/main"); r.code == 0 {
		t.Errorf("rmdir branches/main succeeded")
	}

	// p has its own turn; c forks after it, so c's parent is p.
	run(t, "mkdir", dir+"/branches/p")
	sh(t, `echo a question on p >> "$1/branches/p/append"`, dir)
	run(t, "mkdir", dir+"/branches/p/turns/3/fork/c")
	wantErrno(t, "ENOTEMPTY", "rmdir a branch with a child", `os.rmdir(A[0])`, dir+"/branches/p")
	if !contains(ls(t, dir+"/branches"), "p") {
		t.Fatalf("the refused rmdir removed p")
	}
	run(t, "rmdir", dir+"/branches/c") // a leaf
	run(t, "rmdir", dir+"/branches/p") // a leaf now
	run(t, "rmdir", dir+"/branches/x2")
	if got := ls(t, dir+"/branches"); !slices.Equal(got, []string{"main"}) {
		t.Errorf("after the rmdirs: ls branches = %q, want [main]", got)
	}
	if n := len(messagesOf(t, dir)); n != len(conversation) {
		t.Errorf("main has %d messages, want %d", n, len(conversation))
	}
	// A branch does not move out of branches/ (EPERM, not EXDEV: mv
	// would copy it and then fail to delete).
	run(t, "mkdir", dir+"/branches/q")
	wantErrno(t, "EPERM", "rename a branch out of branches/", `os.rename(A[0], A[1])`, dir+"/branches/q", dir+"/q")
}

// info.json describes a branch: a fork names its parent and fork point.
func TestForkInfoJSON(t *testing.T) {
	_, dir := appendFixture(t)
	run(t, "mkdir", dir+"/turns/1/fork/y")
	var info map[string]any
	if err := json.Unmarshal([]byte(cat(t, dir+"/branches/y/info.json")), &info); err != nil {
		t.Fatalf("info.json is not JSON: %v", err)
	}
	if info["name"] != "y" || info["default"] != false || info["parent"] != "main" {
		t.Errorf("info.json of y: %v", info)
	}
	if v, ok := info["forked_at"].(float64); !ok || v != 2 {
		t.Errorf("info.json forked_at = %v, want 2 (turn 1's messages)", info["forked_at"])
	}
	var mi map[string]any
	if err := json.Unmarshal([]byte(cat(t, dir+"/branches/main/info.json")), &mi); err != nil {
		t.Fatalf("main's info.json is not JSON: %v", err)
	}
	if mi["default"] != true || mi["name"] != "main" {
		t.Errorf("info.json of main: %v", mi)
	}
	if v, _ := mi["messages"].(float64); int(v) != len(conversation) {
		t.Errorf("info.json of main: messages %v, want %d", mi["messages"], len(conversation))
	}
}
