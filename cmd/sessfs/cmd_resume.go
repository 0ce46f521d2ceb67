package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/importer"
)

func runResume(args []string) int {
	c := newCLI("resume", "[--agent claude-code|codex] [--branch B] [--print] SESSION",
		`Continues a branch of SESSION in an agent: writes it, ancestry resolved and
with the messages added in sessfs, as a new session of the agent, with a fresh
id, where the agent looks for it (Claude Code: projects/ of $CLAUDE_CONFIG_DIR
or ~/.claude; Codex: sessions/ of $CODEX_HOME or ~/.codex), records it in
meta.json under "resumed", and runs the agent's own resume command in the
session's folder (claude --resume ID, codex resume ID). The agent is the
session's own when it is Claude Code or Codex, else Claude Code; a session of
the other agent, or made in sessfs, maps to the agent's shapes, and stderr says
what it leaves out (reasoning, the other agent's events and instructions).
With --print, prints the new session's id and the command, and runs nothing.
To continue from turn N: sessfs fork --at N SESSION x (or mkdir
MOUNT/SESSION/turns/N/fork/x), then sessfs resume --branch x SESSION.`)
	agent := c.fs.String("agent", "", "claude-code or codex (default: the session's own, else claude-code)")
	branch := c.fs.String("branch", "", "the branch to continue (default: the default branch)")
	printOnly := c.fs.Bool("print", false, "print the new session's id and the command; run nothing")
	rest, code, ok := c.parse(args, 1, 1)
	if !ok {
		return code
	}
	if *agent != "" && *agent != string(importer.ClaudeCode) && *agent != string(importer.Codex) {
		return c.usageError(fmt.Sprintf("--agent %q: want claude-code or codex", *agent))
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	meta, err := s.Meta()
	if err != nil {
		return c.fail(err)
	}
	b, err := s.Branch(*branch)
	if err != nil {
		return c.fail(err)
	}
	f := resumeAgent(*agent, meta)
	cwd, err := c.resumeFolder(meta)
	if err != nil {
		return c.fail(err)
	}
	n, path, err := writeResumed(s, b, f, cwd)
	if err != nil {
		return c.fail(err)
	}
	reportLeftOut("resume", n)
	if err := recordResumed(s, n, path, b.Name); err != nil {
		// The file is written and the agent can resume it: say so, go on.
		c.warn(fmt.Errorf("%s is written, but meta.json does not record it: %w", path, err))
	}
	command := importer.ResumeCommand(f, n.ID)
	line := "cd " + shellQuote(cwd) + " && " + strings.Join(command, " ")
	if *printOnly {
		fmt.Println(n.ID)
		fmt.Println(line)
		return exitOK
	}
	fmt.Fprintf(os.Stderr, "sessfs resume: %s\n", path)
	bin, err := exec.LookPath(command[0])
	if err != nil {
		return c.fail(fmt.Errorf("%s is not installed (not found on PATH); the session is ready, run: %s", command[0], line))
	}
	cmd := exec.Command(bin, command[1:]...)
	cmd.Dir = cwd
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode() // the agent has said why
		}
		return c.fail(fmt.Errorf("run %s: %w", line, err))
	}
	return exitOK
}

// resumeAgent is the agent a session resumes in: the one asked for, else
// the session's own when it is one that can resume, else Claude Code.
func resumeAgent(asked string, m backing.Meta) importer.Format {
	if asked != "" {
		return importer.Format(asked)
	}
	for _, f := range importer.NativeFormats {
		if backing.AgentOf(m) == string(f) {
			return f
		}
	}
	return importer.ClaudeCode
}

// resumeFolder is where the agent runs: the session's cwd, else the
// current folder, saying so, as the agent's files are kept by folder.
func (c *cli) resumeFolder(m backing.Meta) (string, error) {
	here, err := os.Getwd()
	if err != nil {
		return "", err
	}
	switch fi, err := os.Stat(m.Cwd); {
	case m.Cwd == "":
		fmt.Fprintf(os.Stderr, "sessfs %s: the session records no folder; resuming in the current one, %s\n", c.name, here)
	case err != nil || !fi.IsDir():
		fmt.Fprintf(os.Stderr, "sessfs %s: the session's folder %s is not there; resuming in the current one, %s\n", c.name, m.Cwd, here)
	default:
		return m.Cwd, nil
	}
	return here, nil
}

// writeResumed writes branch b of s as a new session of agent f, run in
// cwd, where the agent looks for it: whole or not at all.
func writeResumed(s backing.Session, b backing.Branch, f importer.Format, cwd string) (importer.Native, string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return importer.Native{}, "", err
	}
	o := importer.NativeOptions{ID: uuid.Must(uuid.NewV7()).String(), Cwd: cwd, Now: time.Now()}
	path, err := importer.NativePath(importer.Native{Format: f, ID: o.ID, Cwd: cwd, Created: o.Now}, os.Getenv, home)
	if err != nil {
		return importer.Native{}, "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return importer.Native{}, "", err
	}
	var n importer.Native
	// 0600: a session holds what was said and run; the agents keep
	// theirs private too.
	err = writeFileAtomic(path, 0o600, func(w io.Writer) error {
		var err error
		n, err = importer.WriteNative(w, f, s, b.ID, o)
		return err
	})
	return n, path, err
}

// resumed is one entry of meta.json's "resumed": a new session of an
// agent made of a branch of this one.
type resumed struct {
	Agent  string    `json:"agent"`
	ID     string    `json:"id"`
	Path   string    `json:"path"`
	Branch string    `json:"branch"`
	At     time.Time `json:"at"`
}

// recordResumed adds n to meta.json's "resumed" list, so that the session
// says where it went on.
func recordResumed(s backing.Session, n importer.Native, path, branch string) error {
	m, err := s.Meta()
	if err != nil {
		return err
	}
	var list []json.RawMessage
	if raw := m.Extra["resumed"]; raw != nil {
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf(`"resumed" is not a list`)
		}
	}
	entry, err := json.Marshal(resumed{Agent: string(n.Format), ID: n.ID, Path: path, Branch: branch, At: n.Created.UTC()})
	if err != nil {
		return err
	}
	raw, err := json.Marshal(append(list, entry))
	if err != nil {
		return err
	}
	return s.SetExtra("resumed", raw)
}
