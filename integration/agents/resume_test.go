package agents_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/agents"
)

// Resume tests: a session in the store (imported from an agent, or made
// with sessfs new and append) is forked after turn 1 and continued in a
// real agent with `sessfs resume`; the agent's stand-in must be sent turn
// 1 and the new prompt, in its own API's shapes, and nothing of turn 2.

// prompt3 is the prompt a resumed branch continues with: not turn 2's, so
// that the test can tell them apart.
const prompt3 = "Then suggest a name for a multiply function."

// sessfs runs the sessfs command on store as the agent r would see it
// (r's home and environment, in r's folder) and returns its stdout.
func sessfs(t *testing.T, r *agents.Runner, store string, args ...string) string {
	t.Helper()
	return sessfsIn(t, r, store, "", args...)
}

// sessfsIn is sessfs with stdin.
func sessfsIn(t *testing.T, r *agents.Runner, store, stdin string, args ...string) string {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	cmd := exec.Command(sessfsBin, append(args, "--store", store)...)
	cmd.Dir = r.Dir
	cmd.Env = append([]string{"HOME=" + r.Home, "PATH=/usr/bin:/bin"}, r.Env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("sessfs %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
	}
	if errb.Len() > 0 {
		t.Logf("sessfs %s: stderr: %s", args[0], errb.String())
	}
	return out.String()
}

// resumePrint runs `sessfs resume --print` and returns the new session's
// id and the command it printed.
func resumePrint(t *testing.T, r *agents.Runner, store string, args ...string) (id, command string) {
	t.Helper()
	out := sessfs(t, r, store, append([]string{"resume", "--print"}, args...)...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("resume --print: want the id and the command, got %q", out)
	}
	return lines[0], lines[1]
}

// importAndFork imports file into a new store, forks branch x after
// turn 1 and returns the store and the session's name.
func importAndFork(t *testing.T, r *agents.Runner, file string) (store, name string) {
	t.Helper()
	store = t.TempDir()
	sessfs(t, r, store, "import", file)
	name = strings.TrimSpace(sessfs(t, r, store, "last"))
	sessfs(t, r, store, "fork", "--at", "1", name, "x")
	return store, name
}

// checkContinued asserts that the first model call of a resumed branch
// carried turn 1 (prompt, tool call, tool result, answer) in order, then
// the new prompt last; turn 1's prompt and tool call once; and nothing of
// turn 2 (its prompt, its answer) anywhere in the request.
func checkContinued(t *testing.T, calls []agents.Call, answer1, newPrompt string, absent ...string) {
	t.Helper()
	if len(calls) == 0 {
		t.Fatal("the resumed session made no model call with tools")
	}
	var got []string
	calls1 := 0
	for _, m := range calls[0].History {
		if m.Role != "system" {
			got = append(got, render(m))
			calls1 += len(m.ToolCalls)
		}
	}
	want := []struct{ role, holds string }{
		{"user", prompt1}, {"assistant", "[tool "}, {"user", "[result: "}, {"assistant", answer1}, {"user", newPrompt},
	}
	i := 0
	for _, g := range got {
		if i < len(want) && strings.HasPrefix(g, want[i].role+": ") && strings.Contains(g, want[i].holds) {
			i++
		}
	}
	all := strings.Join(got, "\n")
	if i < len(want) {
		t.Errorf("the first call lacks turn 1 and the new prompt in order: found %d of %v in:\n%s", i, want, all)
	}
	if len(got) == 0 || !strings.Contains(got[len(got)-1], newPrompt) {
		t.Errorf("the first call does not end with the new prompt:\n%s", all)
	}
	if n := strings.Count(all, prompt1); n != 1 {
		t.Errorf("turn 1's prompt is sent %d times, want once:\n%s", n, all)
	}
	if calls1 != 1 {
		t.Errorf("%d tool calls in the history, want turn 1's one:\n%s", calls1, all)
	}
	for _, a := range absent {
		if bytes.Contains(calls[0].Body, []byte(a)) {
			t.Errorf("the request holds %q, of turn 2, which the branch ends before:\n%s", a, all)
		}
	}
}

// claudeSession runs Claude Code for two turns and returns its session
// file and turn 1's and turn 2's answers.
func claudeSession(t *testing.T, api *agents.Server, c *agents.Runner) (file, answer1, answer2 string) {
	t.Helper()
	c.MustRun(t, "-p", prompt1, "--allowedTools", agents.AnthropicTool)
	answer1 = checkTurn(t, api.ToolCalls(agents.AnthropicTool), prompt1)
	file = onlyFile(t, filepath.Join(claudeProject(t, c), "*.jsonl"))
	id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	n := len(api.ToolCalls(agents.AnthropicTool))
	c.MustRun(t, "--resume", id, "-p", prompt2, "--allowedTools", agents.AnthropicTool)
	answer2 = checkTurn(t, api.ToolCalls(agents.AnthropicTool)[n:], prompt2)
	return file, answer1, answer2
}

// claudeProject is the folder where Claude Code keeps the sessions of
// c's folder.
func claudeProject(t *testing.T, c *agents.Runner) string {
	t.Helper()
	cwd, err := filepath.EvalSymlinks(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c.Home, ".claude", "projects", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(cwd, "-"))
}

// codexSession runs Codex for two turns and returns its rollout and turn
// 1's and turn 2's answers.
func codexSession(t *testing.T, api *agents.Server, c *agents.Runner) (file, answer1, answer2 string) {
	t.Helper()
	c.MustRun(t, "exec", "--skip-git-repo-check", prompt1)
	answer1 = checkTurn(t, api.ToolCalls(agents.OpenAITool), prompt1)
	file = onlyFile(t, filepath.Join(c.CodexHome(), "sessions", "*", "*", "*", "rollout-*.jsonl"))
	n := len(api.ToolCalls(agents.OpenAITool))
	c.MustRun(t, "exec", "--skip-git-repo-check", "resume", codexSessionID(t, file), prompt2)
	answer2 = checkTurn(t, api.ToolCalls(agents.OpenAITool)[n:], prompt2)
	return file, answer1, answer2
}

// continueClaude resumes branch x of name in Claude Code (c) with the
// new prompt, and returns the model calls it made.
func continueClaude(t *testing.T, api *agents.Server, c *agents.Runner, store, name string, args ...string) []agents.Call {
	t.Helper()
	id, command := resumePrint(t, c, store, append(args, name)...)
	if !strings.HasSuffix(command, "claude --resume "+id) {
		t.Errorf("resume --print: the command is %q, want claude --resume %s", command, id)
	}
	if _, err := os.Stat(filepath.Join(claudeProject(t, c), id+".jsonl")); err != nil {
		t.Fatalf("the resumed session is not where Claude Code looks for it: %v", err)
	}
	n := len(api.ToolCalls(agents.AnthropicTool))
	c.MustRun(t, "--resume", id, "-p", prompt3, "--allowedTools", agents.AnthropicTool)
	return api.ToolCalls(agents.AnthropicTool)[n:]
}

// continueCodex resumes branch x of name in Codex (c) with the new
// prompt, and returns the model calls it made.
func continueCodex(t *testing.T, api *agents.Server, c *agents.Runner, store, name string, args ...string) []agents.Call {
	t.Helper()
	id, command := resumePrint(t, c, store, append(args, name)...)
	if !strings.HasSuffix(command, "codex resume "+id) {
		t.Errorf("resume --print: the command is %q, want codex resume %s", command, id)
	}
	onlyFile(t, filepath.Join(c.CodexHome(), "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	n := len(api.ToolCalls(agents.OpenAITool))
	c.MustRun(t, "exec", "--skip-git-repo-check", "resume", id, prompt3)
	return api.ToolCalls(agents.OpenAITool)[n:]
}

// TestResumeClaudeCode: a Claude Code session of two turns, imported and
// forked after turn 1, continues in Claude Code from turn 1.
func TestResumeClaudeCode(t *testing.T) {
	api := agents.NewAnthropic(t)
	c := agents.Claude(t, api)
	file, answer1, answer2 := claudeSession(t, api, c)
	store, name := importAndFork(t, c, file)
	calls := continueClaude(t, api, c, store, name, "--branch", "x")
	checkContinued(t, calls, answer1, prompt3, prompt2, answer2)
	checkTurn(t, calls, prompt3)
	// The session records where it went on.
	doc := sessfs(t, c, store, "export", "--format", "json", name)
	if !regexp.MustCompile(`"resumed":\s*\[\s*\{"agent":"claude-code","id":"[0-9a-f-]{36}","path":"[^"]+\.jsonl","branch":"x"`).MatchString(doc) {
		t.Errorf("meta.json does not record the resume: %.2000s", doc)
	}
}

// TestResumeCodex: a Codex session of two turns, imported and forked
// after turn 1, continues in Codex from turn 1.
func TestResumeCodex(t *testing.T) {
	api := agents.NewOpenAI(t)
	c := agents.Codex(t, api)
	file, answer1, answer2 := codexSession(t, api, c)
	store, name := importAndFork(t, c, file)
	calls := continueCodex(t, api, c, store, name, "--branch", "x")
	checkContinued(t, calls, answer1, prompt3, prompt2, answer2)
	checkTurn(t, calls, prompt3)
}

// TestResumeCodexInClaudeCode: a Codex session continues in Claude Code,
// its call and result as a tool_use and a tool_result.
func TestResumeCodexInClaudeCode(t *testing.T) {
	oapi := agents.NewOpenAI(t)
	cx := agents.Codex(t, oapi)
	file, answer1, answer2 := codexSession(t, oapi, cx)
	store, name := importAndFork(t, cx, file)

	api := agents.NewAnthropic(t)
	c := agents.Claude(t, api)
	c.Dir = cx.Dir // the session's folder: where the agent resumes it
	calls := continueClaude(t, api, c, store, name, "--agent", "claude-code", "--branch", "x")
	checkContinued(t, calls, answer1, prompt3, prompt2, answer2)
	checkTurn(t, calls, prompt3)
}

// TestResumeClaudeCodeInCodex: a Claude Code session continues in Codex,
// its tool_use and tool_result as a function_call and its output.
func TestResumeClaudeCodeInCodex(t *testing.T) {
	aapi := agents.NewAnthropic(t)
	cl := agents.Claude(t, aapi)
	file, answer1, answer2 := claudeSession(t, aapi, cl)
	store, name := importAndFork(t, cl, file)

	api := agents.NewOpenAI(t)
	c := agents.Codex(t, api)
	c.Dir = cl.Dir
	calls := continueCodex(t, api, c, store, name, "--agent", "codex", "--branch", "x")
	checkContinued(t, calls, answer1, prompt3, prompt2, answer2)
	checkTurn(t, calls, prompt3)
}

// madeInSessfs is a session made with sessfs new and append: turn 1 as
// an agent harness would write it, in Anthropic's shapes.
const madeInSessfs = `{"role":"user","content":"` + prompt1 + `"}
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_made_1","name":"Bash","input":{"command":"ls"}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_made_1","content":"README.md\ncalc.py"}]}
{"role":"assistant","content":[{"type":"text","text":"Two files: calc.py adds numbers."}]}
`

// TestResumeMadeInSessfs: a session made only with sessfs new and append
// continues in Claude Code and in Codex.
func TestResumeMadeInSessfs(t *testing.T) {
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			var api *agents.Server
			var c *agents.Runner
			if agent == "claude-code" {
				api = agents.NewAnthropic(t)
				c = agents.Claude(t, api)
			} else {
				api = agents.NewOpenAI(t)
				c = agents.Codex(t, api)
			}
			store := t.TempDir()
			name := strings.TrimSpace(sessfs(t, c, store, "new", "--cwd", c.Dir, "made"))
			sessfsIn(t, c, store, madeInSessfs, "append", name, "-")
			var calls []agents.Call
			if agent == "claude-code" {
				calls = continueClaude(t, api, c, store, name, "--agent", agent)
			} else {
				calls = continueCodex(t, api, c, store, name, "--agent", agent)
			}
			checkContinued(t, calls, "Two files: calc.py adds numbers.", prompt3)
			checkTurn(t, calls, prompt3)
		})
	}
}
