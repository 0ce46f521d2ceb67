package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// resumeStore is a store with session "made": a cwd, a prompt and an
// answer, on branch x too, and the agents' folders in a temporary place.
func resumeStore(t *testing.T) (s *store, cwd, claude, codex string) {
	t.Helper()
	claude, codex = t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	t.Setenv("CODEX_HOME", codex)
	cwd = t.TempDir()
	s = newStore(t)
	s.ok("new", "--cwd", cwd, "made")
	s.okStdin(`{"role":"user","content":"List the files"}`+"\n"+
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"x"},{"type":"text","text":"Two files."}]}`+"\n",
		"append", "made", "-")
	s.ok("fork", "made", "x")
	return s, cwd, claude, codex
}

// resume --print writes the session where the agent looks for it, prints
// the id and the command, records the resume in meta.json, and says on
// stderr what it left out.
func TestResumePrint(t *testing.T) {
	s, cwd, claude, codex := resumeStore(t)
	r := s.run("resume", "--print", "--branch", "x", "made")
	if r.code != 0 {
		t.Fatalf("resume --print: %v", r)
	}
	out := lines(r.stdout)
	if len(out) != 2 || !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(out[0]) {
		t.Fatalf("resume --print: want the id, then the command: %q", r.stdout)
	}
	id := out[0]
	if want := "cd " + shellQuote(cwd) + " && claude --resume " + id; out[1] != want {
		t.Errorf("command %q, want %q", out[1], want)
	}
	if !strings.Contains(r.stderr, "left out of the Claude Code session: 1 thinking block") {
		t.Errorf("stderr does not count the thinking left out: %q", r.stderr)
	}
	real, _ := filepath.EvalSymlinks(cwd)
	file := filepath.Join(claude, "projects", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(real, "-"), id+".jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the session is not where Claude Code looks: %v", err)
	}
	if !strings.Contains(string(data), `"sessionId":"`+id+`"`) || !strings.Contains(string(data), "Two files.") {
		t.Errorf("%s does not hold the branch as session %s:\n%s", file, id, data)
	}

	// Codex: a rollout named for today and the id, in CODEX_HOME.
	r = s.run("resume", "--print", "--agent", "codex", "made")
	if r.code != 0 {
		t.Fatalf("resume --print --agent codex: %v", r)
	}
	cid := lines(r.stdout)[0]
	if !strings.HasSuffix(lines(r.stdout)[1], " && codex resume "+cid) {
		t.Errorf("command %q, want codex resume %s", lines(r.stdout)[1], cid)
	}
	day := time.Now().Format("2006/01/02")
	if m, _ := filepath.Glob(filepath.Join(codex, "sessions", day, "rollout-*-"+cid+".jsonl")); len(m) != 1 {
		t.Errorf("no rollout of %s in %s/sessions/%s", cid, codex, day)
	}

	// meta.json says where the session went on, each time.
	var doc struct {
		Meta struct {
			Resumed []struct{ Agent, ID, Path, Branch string } `json:"resumed"`
		} `json:"meta"`
	}
	if err := json.Unmarshal([]byte(s.ok("export", "--format", "json", "made")), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Meta.Resumed
	if len(got) != 2 || got[0].Agent != "claude-code" || got[0].ID != id || got[0].Path != file || got[0].Branch != "x" ||
		got[1].Agent != "codex" || got[1].ID != cid || got[1].Branch != "main" {
		t.Errorf("meta.json's resumed: %+v", got)
	}
}

// Without the agent's program, resume says which is missing and prints
// the command to run once it is there; the session is written already.
func TestResumeAgentMissing(t *testing.T) {
	s, _, _, _ := resumeStore(t)
	t.Setenv("PATH", t.TempDir())
	r := s.run("resume", "made")
	if r.code != exitFail || !strings.Contains(r.stderr, "claude is not installed") || !strings.Contains(r.stderr, "&& claude --resume ") {
		t.Errorf("resume without claude: %v", r)
	}
}

// A session that records no folder resumes in the current one, and says so.
func TestResumeNoCwd(t *testing.T) {
	s, _, _, _ := resumeStore(t)
	s.ok("new", "bare")
	s.okStdin("hello", "append", "bare", "-")
	r := s.run("resume", "--print", "bare")
	here, _ := os.Getwd()
	if r.code != 0 || !strings.Contains(r.stderr, "records no folder; resuming in the current one, "+here) ||
		!strings.Contains(r.stdout, "cd "+shellQuote(here)+" && claude --resume ") {
		t.Errorf("resume of a session with no cwd: %v", r)
	}
}

func TestResumeUsage(t *testing.T) {
	s, _, _, _ := resumeStore(t)
	s.fails(exitUsage, `--agent "gemini": want claude-code or codex`, "", "resume", "--agent", "gemini", "made")
	s.fails(exitFail, "", "", "resume", "--branch", "nope", "made")
}

// export --format claude-code|codex writes the same file to stdout; what
// it leaves out is on stderr; --redact is refused, as it would change
// what the agent reads.
func TestExportNative(t *testing.T) {
	s, _, _, _ := resumeStore(t)
	r := s.run("export", "--format", "codex", "made")
	first, _, _ := strings.Cut(r.stdout, "\n")
	if r.code != 0 || !strings.Contains(first, `"type":"session_meta"`) || !strings.Contains(r.stdout, `"output_text","text":"Two files."`) {
		t.Errorf("export --format codex: %v", r)
	}
	if !strings.Contains(r.stderr, "left out of the Codex rollout: 1 thinking block") {
		t.Errorf("stderr does not count what is left out: %q", r.stderr)
	}
	s.fails(exitUsage, "--redact", "", "export", "--format", "claude-code", "--redact", "made")
}
