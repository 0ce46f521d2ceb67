package agents_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/agents"
)

// The two prompts of every smoke test: the first makes the stand-in ask
// for the shell tool, the second comes in the resumed session.
const (
	prompt1 = "What does calc.py do? List the files first."
	prompt2 = "Now suggest a name for a subtract function."
)

// TestClaudeCode: `claude -p` runs Bash for the stand-in, answers, and
// writes ~/.claude/projects/<cwd with / as ->/<id>.jsonl; `claude
// --resume <id> -p` sends that session's history.
func TestClaudeCode(t *testing.T) {
	api := agents.NewAnthropic(t)
	c := agents.Claude(t, api)
	c.MustRun(t, "-p", prompt1, "--allowedTools", agents.AnthropicTool)
	turn1 := api.ToolCalls(agents.AnthropicTool)
	answer1 := checkTurn(t, turn1, prompt1)

	// Claude Code resolves the cwd's links, then writes every character
	// that is not a letter or digit as "-".
	cwd, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	project := regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(cwd, "-")
	file := onlyFile(t, filepath.Join(c.Home, ".claude", "projects", project, "*.jsonl"))
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	fileHolds(t, file, prompt1, `"name":"Bash"`, answer1)

	c.MustRun(t, "--resume", id, "-p", prompt2, "--allowedTools", agents.AnthropicTool)
	turn2 := api.ToolCalls(agents.AnthropicTool)[len(turn1):]
	checkResumed(t, turn2, prompt1, answer1)
	checkTurn(t, turn2, prompt2)
	fileHolds(t, file, prompt2)
}

// TestCodex: `codex exec` runs exec_command for the stand-in, answers,
// and writes $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl;
// `codex exec resume <id>` sends that session's history.
func TestCodex(t *testing.T) {
	api := agents.NewOpenAI(t)
	c := agents.Codex(t, api)
	c.MustRun(t, "exec", "--skip-git-repo-check", prompt1)
	turn1 := api.ToolCalls(agents.OpenAITool)
	answer1 := checkTurn(t, turn1, prompt1)

	file := onlyFile(t, filepath.Join(c.CodexHome(), "sessions", "[0-9][0-9][0-9][0-9]", "[0-9][0-9]", "[0-9][0-9]", "rollout-*.jsonl"))
	id := codexSessionID(t, file)
	if !strings.HasSuffix(file, "-"+id+".jsonl") {
		t.Errorf("%s is not named for its session %s", file, id)
	}
	fileHolds(t, file, prompt1, `"name":"exec_command"`, answer1)

	c.MustRun(t, "exec", "--skip-git-repo-check", "resume", id, prompt2)
	turn2 := api.ToolCalls(agents.OpenAITool)[len(turn1):]
	checkResumed(t, turn2, prompt1, answer1)
	checkTurn(t, turn2, prompt2)
	// The resume continues the same rollout file.
	if again := onlyFile(t, filepath.Join(c.CodexHome(), "sessions", "*", "*", "*", "rollout-*.jsonl")); again != file {
		t.Errorf("the resume wrote %s, not %s", again, file)
	}
	fileHolds(t, file, prompt2)
}

// codexSessionID is the id in a rollout's first line, its session_meta.
func codexSessionID(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			ID string `json:"id"`
		} `json:"payload"`
	}
	if err := json.Unmarshal([]byte(first), &meta); err != nil || meta.Type != "session_meta" || meta.Payload.ID == "" {
		t.Fatalf("%s: the first line is not a session_meta with an id (%v): %.300s", file, err, first)
	}
	return meta.Payload.ID
}

// TestGeminiCLI: `gemini -p` runs list_directory for the stand-in,
// answers, and writes ~/.gemini/tmp/<project>/chats/session-….jsonl;
// `gemini --resume latest -p` sends that session's history.
func TestGeminiCLI(t *testing.T) {
	api := agents.NewGemini(t)
	c := agents.Gemini(t, api)
	c.MustRun(t, "-p", prompt1)
	turn1 := api.ToolCalls(agents.GeminiTool)
	answer1 := checkTurn(t, turn1, prompt1)

	chats := filepath.Join(c.Home, ".gemini", "tmp", filepath.Base(c.Dir), "chats")
	file := onlyFile(t, filepath.Join(chats, "session-*.jsonl"))
	fileHolds(t, file, prompt1, `"name":"list_directory"`, answer1)

	c.MustRun(t, "--resume", "latest", "-p", prompt2)
	turn2 := api.ToolCalls(agents.GeminiTool)[len(turn1):]
	checkResumed(t, turn2, prompt1, answer1)
	checkTurn(t, turn2, prompt2)
	fileHolds(t, file, prompt2)
}
