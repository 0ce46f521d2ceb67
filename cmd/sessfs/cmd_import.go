package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/sessfs/sessfs/backing/importer"
)

// runImport is `sessfs import`: its flags, progress and printing. The
// import itself is package importer's.
func runImport(args []string) int {
	c := newCLI("import", "[--format claude-code|codex|gemini|auto] [PATH...]",
		"Imports sessions written by Claude Code (~/.claude/projects/*/*.jsonl), Codex\n"+
			"(~/.codex/sessions/**/rollout-*.jsonl) or Gemini CLI\n"+
			"(~/.gemini/tmp/*/chats/session-*.jsonl): files, or folders searched for them.\n"+
			"Without PATH, from the folders where the agents keep them: projects/ of\n"+
			"$CLAUDE_CONFIG_DIR or ~/.claude, sessions/ and archived_sessions/ of\n"+
			"$CODEX_HOME or ~/.codex, and ~/.gemini/tmp (those that exist; with --format,\n"+
			"that agent's).\n"+
			"A file not of the --format named is refused, saying what it looks like.\n"+
			"Prints the name of each session it creates or updates. A new session is named\n"+
			"by Claude Code's slug for it (expressive-chasing-pie), else by the first words\n"+
			"of its title, else by its format and the end of its id; -2, -3, … when taken.\n"+
			"Every line of the source is stored, with its bytes under \"source\" (lines that\n"+
			"are not messages, such as summaries and UI events, as messages of role\n"+
			"\"event\", left out of transcripts), so `sessfs export --format original`\n"+
			"writes the file back byte for byte. Importing a source again finds its session\n"+
			"by the source's id, whatever the session is called now, and stores only what\n"+
			"the source gained since; one that changed other than by growing is refused\n"+
			"and its session left as it was (sessfs sync keeps it as a new session).\n"+
			"A Claude Code rewind's abandoned path becomes a branch, rewind-1, …; a\n"+
			"subagent's lines a branch subagent-1, …, and a subagent's own file\n"+
			"(subagents/agent-*.jsonl) a session <name>-agent-<id> named after its\n"+
			"session and linked to it, as a Codex fork is to its origin.\n"+
			"It also has the store keep the size of each message's piece of the\n"+
			"transcripts (index/sizes/), so that a mount knows a long session's file\n"+
			"sizes at once.")
	format := c.fs.String("format", "auto", "the source format: claude-code, codex, gemini or auto (by content)")
	rest, code, ok := c.parse(args, 0, -1)
	if !ok {
		return code
	}
	switch *format {
	case "auto", string(importer.ClaudeCode), string(importer.Codex), string(importer.Gemini):
	default:
		return c.usageError(fmt.Sprintf("--format %q: want claude-code, codex, gemini or auto", *format))
	}
	if len(rest) == 0 {
		var err error
		var only []importer.Format
		if *format != "auto" {
			only = append(only, importer.Format(*format))
		}
		if rest, err = agentFolders("import", only...); err != nil {
			return c.fail(err)
		}
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	failed := 0
	progress := &progress{verb: "importing"}
	imports := importer.New(st, importer.Options{
		Format:   importer.Format(*format),
		AutoFlag: "--format auto",
		RemoveCommand: func(name string) string {
			return "sessfs rm" + c.storeArg() + " " + shellQuote(name)
		},
		Progress: progress.show,
		Workers:  importWorkers(),
	})
	sizes := startKeepingSizes(st, c.warn)
	err = imports.Run(rest, func(r importer.Result) {
		progress.clear()
		switch {
		case r.Err != nil:
			c.warn(fmt.Errorf("%s: %w", r.Path, r.Err))
			failed++
		case !r.Stored:
			fmt.Fprintf(os.Stderr, "sessfs import: %s: already imported as %s, nothing new\n", r.Path, r.Name)
		default:
			fmt.Println(r.Name)
			sizes.add(r.Name)
		}
	})
	sizes.wait()
	// The paths could not be listed (nothing was imported), or a session
	// that came from another could not be linked to it.
	if err != nil {
		c.warn(err)
		failed++
	}
	if failed > 0 {
		return exitFail
	}
	return exitOK
}

// importWorkers is how many files an import reads ahead and stores
// behind (importer.Options.Workers): one per CPU, from 2, so that one
// file's decode overlaps another's fsyncs, to 4, as each holds a file's
// lines of up to 16 MB.
func importWorkers() int { return perCPU(2, 4) }

// perCPU is one goroutine per CPU this process may use, at least lo and
// at most hi: how many an import's workers and size keepers are.
func perCPU(lo, hi int) int { return min(max(runtime.GOMAXPROCS(0), lo), hi) }

// agentFolders are the folders of the agents' sessions that exist, of
// the agents of formats (of every agent when none is given), said on
// stderr by command cmd; an error that says where it looked when there is
// none.
func agentFolders(cmd string, formats ...importer.Format) ([]string, error) {
	paths, err := agentFolderPaths(importer.AgentFolders, formats)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no PATH given, and no agent's sessions found in ~/.claude/projects, "+
			"~/.codex/sessions, ~/.codex/archived_sessions or ~/.gemini/tmp (nor where $CLAUDE_CONFIG_DIR or $CODEX_HOME say); "+
			"name the files or folders to %s", cmd)
	}
	fmt.Fprintf(os.Stderr, "sessfs %s: from %s\n", cmd, strings.Join(paths, ", "))
	return paths, nil
}

// agentFolderPaths are the paths of the folders list gives for this
// user, of the agents of formats (all when none is given).
func agentFolderPaths(list func(func(string) string, string) []importer.AgentFolder, formats []importer.Format) ([]string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("no PATH given, and no home folder to find the agents' sessions in: %w", err)
	}
	var paths []string
	for _, f := range list(os.Getenv, home) {
		if len(formats) == 0 || slices.Contains(formats, f.Format) {
			paths = append(paths, f.Path)
		}
	}
	return paths, nil
}
