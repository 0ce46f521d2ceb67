package integration

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// tasks.json and memory.json through the mount, with real programs: a
// harness in Python keeps its task list there, a fork made by mkdir has
// it as it was, the CLI's export holds it, and a document that is not a
// JSON object fails the shell's write.
func TestTasksAndMemory(t *testing.T) {
	m, dir := appendFixture(t)
	if got := cat(t, dir+"/tasks.json"); got != "{}\n" {
		t.Errorf("a session's tasks.json = %q, want {}", got)
	}
	before := len(messagesOf(t, dir))
	py(t, `
import json
with open(A[0], "w") as f:
    json.dump({"tasks": [{"title": "read the logs", "status": "completed"}, {"title": "fix it", "status": "in_progress"}]}, f)
with open(A[0]) as f:
    print(json.load(f)["tasks"][1]["status"])
`, dir+"/tasks.json")
	var doc struct {
		Tasks []struct{ Title, Status string }
	}
	if err := json.Unmarshal([]byte(cat(t, dir+"/tasks.json")), &doc); err != nil || len(doc.Tasks) != 2 || doc.Tasks[1].Status != "in_progress" {
		t.Errorf("tasks.json after the harness wrote it: %+v, %v", doc, err)
	}
	if size := statSize(t, dir+"/tasks.json"); size != int64(len(cat(t, dir+"/tasks.json"))) {
		t.Errorf("stat says %d bytes, cat reads %d", size, len(cat(t, dir+"/tasks.json")))
	}
	// An event, not a message: the conversation is as it was.
	if ms := messagesOf(t, dir); len(ms) != before+1 || ms[len(ms)-1].role() != "event" {
		t.Errorf("messages.jsonl after the save: %d lines (was %d), the last %v", len(ms), before, ms[len(ms)-1])
	}
	if md := cat(t, dir+"/transcript.md"); strings.Contains(md, "read the logs") {
		t.Error("transcript.md shows the task list")
	}

	if err := os.Mkdir(dir+"/branches/later", 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, `printf '%s' '{"facts":["the fork was made after the first task"]}' > "$1"`, dir+"/branches/later/memory.json")
	sh(t, `printf '%s' '{"tasks":[]}' > "$1"`, dir+"/tasks.json")
	if got := cat(t, dir+"/branches/later/tasks.json"); !strings.Contains(got, "fix it") {
		t.Errorf("the fork's tasks.json = %q, want the list as at the fork", got)
	}
	if got := cat(t, dir+"/memory.json"); got != "{}\n" {
		t.Errorf("the fork's memory reached the default branch: %q", got)
	}
	var export struct{ Tasks, Memory json.RawMessage }
	if err := json.Unmarshal([]byte(cli(t, m.StoreDir, "export", "--format", "json", "--branch", "later", "s")), &export); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(export.Tasks), "fix it") || !strings.Contains(string(export.Memory), "the fork was made") {
		t.Errorf("sessfs export --branch later: tasks %s, memory %s", export.Tasks, export.Memory)
	}

	if r := runCmd(t, "", "bash", "-c", `echo '["not","an","object"]' > "$1"`, "bash", dir+"/memory.json"); r.code == 0 || !strings.Contains(r.stderr, "Invalid argument") {
		t.Errorf("echo of an array > memory.json: %v, want Invalid argument", r)
	}
}
