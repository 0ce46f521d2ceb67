package integration

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// Checkpoints through a real mount: the documented event line written to
// append with the shell makes one, `sessfs checkpoint` another, which the
// mount shows within a second; checkpoints/ lists them in the session
// folder and each branch's, each a JSON file that cat, python3 and ls -i
// read as stat says; a fork has those before its fork point; replay
// --checkpoint starts after the mark; the folder changes nothing.
func TestCheckpointsThroughMount(t *testing.T) {
	m, dir := appendFixture(t) // two turns
	sh(t, `printf '%s\n' '{"role":"event","content":"","event":"checkpoint","data":{"name":"first"}}' >> "$1/append"`, dir)
	sh(t, `echo "After the mark: and of Spain?" >> "$1/append"`, dir)
	// A line of the kind whose name could not be a file is kept, and marks
	// nothing.
	sh(t, `printf '%s\n' '{"role":"event","content":"","event":"checkpoint","data":{"name":"a/b"}}' >> "$1/append"`, dir)

	if got := ls(t, dir+"/checkpoints"); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("ls checkpoints = %q, want [first]", got)
	}
	doc := cat(t, dir+"/checkpoints/first")
	var c struct {
		Name             string
		Message, Visible int
		Turn             int
		ID, TS           string
	}
	if err := json.Unmarshal([]byte(doc), &c); err != nil || c.Name != "first" || c.Message != 4 || c.Visible != 4 || c.Turn != 2 || c.ID == "" {
		t.Errorf("checkpoints/first = %q (%v)", doc, err)
	}
	if size := statSize(t, dir+"/checkpoints/first"); size != int64(len(doc)) {
		t.Errorf("stat says %d bytes, cat reads %d", size, len(doc))
	}
	// Its turn folder, from the file, with jq's stand-in.
	_, turn := py(t, `print(json.load(open(A[0]))["turn"])`, dir+"/checkpoints/first")
	if _, err := os.Stat(dir + "/turns/" + strings.TrimSpace(turn)); err != nil || strings.TrimSpace(turn) != "2" {
		t.Errorf("turns/<turn of the checkpoint>: %q, %v", turn, err)
	}
	lsi := strings.Fields(run(t, "ls", "-i", dir+"/checkpoints"))
	stati := strings.TrimSpace(run(t, "stat", "-c", "%i", dir+"/checkpoints/first"))
	if len(lsi) != 2 || lsi[0] != stati {
		t.Errorf("ls -i %q, stat %s", lsi, stati)
	}

	// The CLI writes to the store; the mount hears of it.
	if out := cli(t, m.StoreDir, "checkpoint", "s", "second"); out != "second\n" {
		t.Errorf("sessfs checkpoint printed %q", out)
	}
	eventually(t, 2*time.Second, "the CLI's checkpoint in the mount", func() (bool, string) {
		got := ls(t, dir+"/checkpoints")
		return slices.Equal(got, []string{"first", "second"}), strings.Join(got, " ")
	})
	if got := ls(t, dir+"/branches/main/checkpoints"); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("branches/main/checkpoints = %q", got)
	}

	// A fork at turn 2 has the first mark, not the second; its own go
	// to it alone.
	run(t, "mkdir", dir+"/turns/2/fork/x")
	sh(t, `printf '%s\n' '{"role":"event","content":"","event":"checkpoint","data":{"name":"on x"}}' > "$1/branches/x/append"`, dir)
	if got := ls(t, dir+"/branches/x/checkpoints"); !slices.Equal(got, []string{"first", "on x"}) {
		t.Errorf("branches/x/checkpoints = %q, want [first, on x]", got)
	}
	if got := ls(t, dir+"/checkpoints"); slices.Contains(got, "on x") {
		t.Errorf("x's checkpoint reached main: %q", got)
	}

	// Replay from the mark: the message after it, under its turn's
	// heading, and nothing before it.
	out := cli(t, m.StoreDir, "replay", "--no-wait", "--checkpoint", "first", "s")
	if !strings.HasPrefix(out, "## Turn 3\n\n") || !strings.Contains(out, "After the mark") || strings.Contains(out, "Italy") {
		t.Errorf("replay --checkpoint first printed %q", out)
	}
	if cat(t, dir+"/transcript.md") != cli(t, m.StoreDir, "replay", "--no-wait", "s") {
		t.Error("replay --no-wait is not transcript.md")
	}

	wantErrno(t, "EACCES", "open a checkpoint for writing", `os.open(A[0], os.O_WRONLY)`, dir+"/checkpoints/first")
	wantErrno(t, "EPERM", "rm a checkpoint", `os.unlink(A[0])`, dir+"/checkpoints/first")
	if got := ls(t, dir+"/checkpoints"); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("after the refusals: %q", got)
	}

	// touch marks the head with a new name; the CLI lists it.
	run(t, "touch", dir+"/checkpoints/third")
	if got := ls(t, dir+"/checkpoints"); !slices.Equal(got, []string{"first", "second", "third"}) {
		t.Errorf("after touch: %q", got)
	}
	if out := cli(t, m.StoreDir, "checkpoint", "s"); !strings.Contains(out, "third") {
		t.Errorf("sessfs checkpoint lists %q", out)
	}
	// touch of an older one moves it to the head; a time given is refused.
	sh(t, `echo "Another question." >> "$1/append"`, dir)
	run(t, "touch", dir+"/checkpoints/first")
	_, at := py(t, `print(json.load(open(A[0]))["message"])`, dir+"/checkpoints/first")
	if strings.TrimSpace(at) != "10" {
		t.Errorf("touched, first stands at line %s, want 10 (the head)", at)
	}
	if r := shResult(t, `touch -d yesterday "$1/checkpoints/first"`, dir); r.code == 0 {
		t.Errorf("touch -d of a checkpoint succeeded: %v", r)
	}
	wantErrno(t, "EPERM", "write to a new checkpoint", `f = os.open(A[0], os.O_WRONLY | os.O_CREAT); os.write(f, b"x")`, dir+"/checkpoints/fourth")
	wantErrno(t, "EINVAL", "a dot name in checkpoints/", `open(A[0], "w")`, dir+"/checkpoints/.x.swp")
	if n := len(lines(cat(t, dir+"/messages.jsonl"))); n != 12 { // with the mark the refused write made
		t.Errorf("messages.jsonl has %d lines", n)
	}
}
