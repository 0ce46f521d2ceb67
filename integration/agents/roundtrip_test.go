package agents_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/agents"
)

// sessfsStore runs the sessfs command on a store of its own.
type sessfsStore struct {
	t    *testing.T
	dir  string // the store
	home string // HOME of every run: nothing of the test's own is read
}

func newSessfsStore(t *testing.T) *sessfsStore {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return &sessfsStore{t: t, dir: filepath.Join(t.TempDir(), "store"), home: t.TempDir()}
}

// ok runs `sessfs CMD --store S ARGS…`, which must exit 0, and returns
// its standard output.
func (s *sessfsStore) ok(cmd string, args ...string) string {
	s.t.Helper()
	c := exec.Command(sessfsBin, append([]string{cmd, "--store", s.dir}, args...)...)
	c.Env = []string{"HOME=" + s.home, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		s.t.Fatalf("sessfs %s %q: %v\nstdout:\n%s\nstderr:\n%s", cmd, args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// listed is the part of an `ls --json` row the tests read.
type listed struct {
	Name     string `json:"name"`
	ID       string `json:"id"`
	State    string `json:"state"`
	Agent    string `json:"agent"`
	Messages int    `json:"messages"`
	Parent   string `json:"parent"`
}

func (s *sessfsStore) ls(args ...string) []listed {
	s.t.Helper()
	var out []listed
	if err := json.Unmarshal([]byte(s.ok("ls", append([]string{"--json"}, args...)...)), &out); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// conversation is what a two-turn session of the smoke tests' script
// must show once imported: both prompts, the tool the stand-in asked for
// with its input, the tool's output (the project's listing) and both
// answers.
type conversation struct {
	agent   string   // as `ls` names it
	tool    string   // the tool's name
	input   string   // the input the stand-in asked for, as the transcript shows it
	answers []string // the stand-in's text answers, turn by turn
}

// importAndCheck imports files, the native files of one conversation,
// into a new store, and checks what a user sees: one active session that
// renders the whole conversation, and every file given back byte for byte
// by `export --format original` of the session it was imported as. It
// returns the store and the sessions' names, file by file.
func importAndCheck(t *testing.T, c conversation, files ...string) (*sessfsStore, []string) {
	t.Helper()
	s := newSessfsStore(t)
	names := strings.Fields(s.ok("import", files...))
	if len(names) != len(files) {
		t.Fatalf("import of %d files printed %d names: %q", len(files), len(names), names)
	}
	for i, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ok("export", "--format", "original", names[i]); got != string(want) {
			t.Errorf("export --format original %s differs from %s:\n%s\nwant:\n%s", names[i], f, got, want)
		}
	}

	active := s.ls()
	if len(active) != 1 || active[0].Agent != c.agent {
		t.Fatalf("want one active %s session, ls lists %+v", c.agent, active)
	}
	name := active[0].Name
	for _, md := range []string{s.ok("show", name), s.ok("export", "--format", "md", name)} {
		checkTranscript(t, md, c)
	}
	return s, names
}

// checkTranscript checks the Markdown of a conversation: both turns, each
// prompt in its own, the tool call with its input and output, the answers.
func checkTranscript(t *testing.T, md string, c conversation) {
	t.Helper()
	turn2 := strings.Index(md, "\n## Turn 2\n")
	if turn2 < 0 || strings.Contains(md, "\n## Turn 3\n") {
		t.Fatalf("want two turns:\n%s", md)
	}
	turn1 := md[:turn2]
	for _, want := range []string{
		prompt1,
		"**tool call** `" + c.tool + "`", // the call, named
		c.input,                          // what the stand-in asked it to do
		c.answers[0],
	} {
		if !strings.Contains(turn1, want) {
			t.Errorf("turn 1 does not show %q:\n%s", want, turn1)
		}
	}
	// The tool's output, the project's listing, shows as its result (the
	// prompt names calc.py too: look after the result's heading).
	_, result, _ := strings.Cut(turn1, "**result**")
	if !strings.Contains(result, "calc.py") || !strings.Contains(result, "README.md") {
		t.Errorf("turn 1 does not show the tool's output, a listing of the project:\n%s", turn1)
	}
	for _, want := range []string{prompt2, "**tool call** `" + c.tool + "`", c.answers[1]} {
		if !strings.Contains(md[turn2:], want) {
			t.Errorf("turn 2 does not show %q:\n%s", want, md[turn2:])
		}
	}
}

// TestRoundTripClaudeCode: the session file `claude -p` and `claude
// --resume` wrote imports as one session that shows both turns, Bash and
// its output included, and exports as the same bytes.
func TestRoundTripClaudeCode(t *testing.T) {
	api := agents.NewAnthropic(t)
	c := agents.Claude(t, api)
	c.MustRun(t, "-p", prompt1, "--allowedTools", agents.AnthropicTool)
	turn1 := api.ToolCalls(agents.AnthropicTool)
	answer1 := checkTurn(t, turn1, prompt1)
	cwd, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	project := regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(cwd, "-")
	file := onlyFile(t, filepath.Join(c.Home, ".claude", "projects", project, "*.jsonl"))
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	c.MustRun(t, "--resume", id, "-p", prompt2, "--allowedTools", agents.AnthropicTool)
	answer2 := checkTurn(t, api.ToolCalls(agents.AnthropicTool)[len(turn1):], prompt2)

	importAndCheck(t, conversation{
		agent: "claude-code", tool: agents.AnthropicTool, input: `"command": "ls"`,
		answers: []string{answer1, answer2},
	}, file)
}

// TestRoundTripCodex: the rollout `codex exec` and `codex exec resume`
// wrote imports as one session that shows both turns, exec_command and
// its output included, and exports as the same bytes.
func TestRoundTripCodex(t *testing.T) {
	api := agents.NewOpenAI(t)
	c := agents.Codex(t, api)
	c.MustRun(t, "exec", "--skip-git-repo-check", prompt1)
	turn1 := api.ToolCalls(agents.OpenAITool)
	answer1 := checkTurn(t, turn1, prompt1)
	file := onlyFile(t, filepath.Join(c.CodexHome(), "sessions", "*", "*", "*", "rollout-*.jsonl"))
	c.MustRun(t, "exec", "--skip-git-repo-check", "resume", codexSessionID(t, file), prompt2)
	answer2 := checkTurn(t, api.ToolCalls(agents.OpenAITool)[len(turn1):], prompt2)

	importAndCheck(t, conversation{
		agent: "codex", tool: agents.OpenAITool, input: `"cmd": "ls"`,
		answers: []string{answer1, answer2},
	}, file)
}

// TestRoundTripGeminiCLI: Gemini CLI 0.61 on `--resume` starts a file of
// its own, session-<minute>-<id[:8]>.jsonl, with the metadata line and the
// session context, then writes the resumed turn to the session's own file
// and leaves the one it started with no message. The two files import as
// one active session showing both turns, list_directory and its output
// included, and the left file archived under it; each exports as the same
// bytes.
func TestRoundTripGeminiCLI(t *testing.T) {
	api := agents.NewGemini(t)
	c := agents.Gemini(t, api)
	c.MustRun(t, "-p", prompt1)
	turn1 := api.ToolCalls(agents.GeminiTool)
	answer1 := checkTurn(t, turn1, prompt1)
	chats := filepath.Join(c.Home, ".gemini", "tmp", filepath.Base(c.Dir), "chats")
	written := onlyFile(t, filepath.Join(chats, "session-*.jsonl"))
	// A resume in the minute the session started names its own file the
	// same as the session's (the name is the minute and the id), and
	// writes into it; the usual case, a resume in a later minute, is made
	// certain by dating the session's file back. Gemini CLI finds the
	// session by the id at the name's end and the times inside.
	own := filepath.Join(chats, regexp.MustCompile(`session-[0-9T-]{16}-`).ReplaceAllString(filepath.Base(written), "session-2000-01-01T00-00-"))
	if err := os.Rename(written, own); err != nil {
		t.Fatal(err)
	}
	c.MustRun(t, "--resume", "latest", "-p", prompt2)
	turn2 := api.ToolCalls(agents.GeminiTool)[len(turn1):]
	checkResumed(t, turn2, prompt1, answer1)
	answer2 := checkTurn(t, turn2, prompt2)

	files, err := filepath.Glob(filepath.Join(chats, "session-*.jsonl"))
	if err != nil || len(files) != 2 || files[0] != own {
		t.Fatalf("want the session's file and the one the resume started, got %q (%v)", files, err)
	}
	started := files[1]
	// What the real CLI did: the resumed turn went to the session's own
	// file; the started one holds the metadata and $set lines only.
	fileHolds(t, own, prompt1, prompt2, answer2, `{"$set":{"sessionId":`)
	data, err := os.ReadFile(started)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, line := range lines {
		var fields map[string]json.RawMessage
		json.Unmarshal([]byte(line), &fields)
		metadata := i == 0 && fields["sessionId"] != nil && fields["type"] == nil
		if _, set := fields["$set"]; !metadata && (!set || len(fields) != 1) {
			t.Errorf("the file the resume started holds more than the metadata and $set lines: line %d:\n%s", i+1, line)
		}
	}

	s, names := importAndCheck(t, conversation{
		agent: "gemini", tool: agents.GeminiTool, input: `"dir_path": "."`,
		answers: []string{answer1, answer2},
	}, own, started)
	var session, left listed
	for _, l := range s.ls("--all") {
		switch l.Name {
		case names[0]:
			session = l
		case names[1]:
			left = l
		}
	}
	if left.State != "archived" || left.Parent == "" || left.Parent != session.ID || left.Messages != 0 {
		t.Errorf("the file the resume started imports as %+v, want archived with parent %s", left, session.ID)
	}
}
