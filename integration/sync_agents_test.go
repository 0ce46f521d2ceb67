package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/integration/agents"
)

// agentCase is how one real agent CLI writes a two-turn session: its
// stand-in API, a first prompt, and a resume of the session its file holds.
type agentCase struct {
	name   string
	start  func(t *testing.T) (*agents.Server, *agents.Runner)
	tool   string
	turn1  func(prompt string) []string
	resume func(file, prompt string) []string
}

var uuidAtEnd = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

var agentCases = []agentCase{
	{
		name: "claude-code",
		start: func(t *testing.T) (*agents.Server, *agents.Runner) {
			api := agents.NewAnthropic(t)
			return api, agents.Claude(t, api)
		},
		tool:  agents.AnthropicTool,
		turn1: func(p string) []string { return []string{"-p", p, "--allowedTools", agents.AnthropicTool} },
		resume: func(file, p string) []string {
			id := strings.TrimSuffix(filepath.Base(file), ".jsonl")
			return []string{"--resume", id, "-p", p, "--allowedTools", agents.AnthropicTool}
		},
	},
	{
		name: "codex",
		start: func(t *testing.T) (*agents.Server, *agents.Runner) {
			api := agents.NewOpenAI(t)
			return api, agents.Codex(t, api)
		},
		tool:  agents.OpenAITool,
		turn1: func(p string) []string { return []string{"exec", "--skip-git-repo-check", p} },
		resume: func(file, p string) []string {
			id := uuidAtEnd.FindString(strings.TrimSuffix(file, ".jsonl"))
			return []string{"exec", "--skip-git-repo-check", "resume", id, p}
		},
	},
	{
		name: "gemini",
		start: func(t *testing.T) (*agents.Server, *agents.Runner) {
			api := agents.NewGemini(t)
			return api, agents.Gemini(t, api)
		},
		tool:   agents.GeminiTool,
		turn1:  func(p string) []string { return []string{"-p", p} },
		resume: func(_, p string) []string { return []string{"--resume", "latest", "-p", p} },
	},
}

// syncProc is a running `sessfs sync --watch` with the agent's home as
// its HOME.
type syncProc struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuffer
	done           chan struct{}
	err            error
}

func startSync(t *testing.T, store string, r *agents.Runner) *syncProc {
	t.Helper()
	needCLI(t)
	p := &syncProc{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(sessfsBin, "sync", "--watch", "--store", store)
	p.cmd.Env = append([]string{"HOME=" + r.Home, "PATH=/usr/bin:/bin"}, r.Env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
			if p.err != nil {
				t.Errorf("sessfs sync --watch exited with %v after SIGTERM, want 0\n%s", p.err, p.stderr.String())
			}
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			t.Errorf("sessfs sync --watch still running 10 s after SIGTERM")
		}
	})
	eventually(t, 10*time.Second, "sync --watch caught up", func() (bool, string) {
		return strings.Contains(p.stderr.String(), "; watching "), p.stderr.String()
	})
	return p
}

// newSession waits for sync's line of a new session and returns its name
// and file.
func (p *syncProc) newSession(t *testing.T) (name, file string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^(\S+): new, from (.+)$`)
	eventually(t, 10*time.Second, "sync's line of the new session", func() (bool, string) {
		m := re.FindStringSubmatch(p.stdout.String())
		if m != nil {
			name, file = m[1], m[2]
		}
		return m != nil, p.stdout.String() + p.stderr.String()
	})
	return name, file
}

// The real agents, each writing a session while `sessfs sync --watch`
// keeps a store that is mounted: (a) each turn is in the mount's
// transcript.md within a second of the agent's exit (the agent wrote it
// before it exited); (b) when the agent's file is deleted, the session
// stays in the store and the mount as it was, and its meta.json says its
// source is gone.
func TestSyncWatchRealAgents(t *testing.T) {
	requireFUSE(t)
	for _, a := range agentCases {
		t.Run(a.name, func(t *testing.T) {
			api, r := a.start(t)
			store := filepath.Join(t.TempDir(), "store")
			cli(t, store, "new", "placeholder") // the mount needs a store
			mnt := mountDir(t)
			startMountProc(t, store, mnt)
			sync := startSync(t, store, r)

			const prompt1, prompt2 = "What does calc.py do? List the files first.", "Now suggest a name for a subtract function."
			r.MustRun(t, a.turn1(prompt1)...)
			exited := time.Now()
			calls := api.ToolCalls(a.tool)
			if len(calls) < 2 {
				t.Fatalf("turn 1 made %d model calls with tools", len(calls))
			}
			answer1 := calls[len(calls)-1].Reply
			name, file := sync.newSession(t)
			if strings.HasPrefix(name, a.name+"-") {
				t.Errorf("session named %s, by its id: sync took the file before the prompt was in it", name)
			}
			transcript := filepath.Join(mnt, name, "transcript.md")
			eventually(t, time.Second-time.Since(exited), "turn 1 in the mount", func() (bool, string) {
				b, _ := os.ReadFile(transcript)
				return strings.Contains(string(b), prompt1) && strings.Contains(string(b), answer1), string(b)
			})
			t.Logf("turn 1 in the mount %v after the agent exited", time.Since(exited).Round(time.Millisecond))

			r.MustRun(t, a.resume(file, prompt2)...)
			exited = time.Now()
			answer2 := api.ToolCalls(a.tool)[len(api.ToolCalls(a.tool))-1].Reply
			eventually(t, time.Second, "turn 2 in the mount", func() (bool, string) {
				b, _ := os.ReadFile(transcript)
				return strings.Contains(string(b), prompt2) && strings.Contains(string(b), answer2), string(b)
			})
			t.Logf("turn 2 in the mount %v after the agent exited", time.Since(exited).Round(time.Millisecond))

			before := cat(t, transcript)
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			eventually(t, 10*time.Second, "sync's line of the source gone", func() (bool, string) {
				return strings.Contains(sync.stdout.String(), name+": source gone ("+file+")"), sync.stdout.String()
			})
			if after := cat(t, transcript); after != before {
				t.Errorf("the transcript changed when the source was deleted:\n%s\nwant:\n%s", after, before)
			}
			if meta := cat(t, filepath.Join(mnt, name, "meta.json")); !strings.Contains(meta, `"gone"`) {
				t.Errorf("meta.json does not say the source is gone:\n%s", meta)
			}
			if got := cli(t, store, "show", name); !strings.Contains(got, answer2) {
				t.Errorf("the store lost the session of the deleted source:\n%s", got)
			}
		})
	}
}
