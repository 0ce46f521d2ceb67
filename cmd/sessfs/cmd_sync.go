package main

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sessfs/sessfs/backing/importer"
)

// unitFile is the systemd user unit that runs sync --watch; --unit prints
// it with this machine's command line.
//
//go:embed sessfs-sync.service
var unitFile string

// runSync is `sessfs sync`: its flags and log lines. Keeping the store in
// step with the agents' folders is importer.Syncer's.
func runSync(args []string) int {
	c := newCLI("sync", "[--watch] [--agent claude-code|codex|gemini]... [--unit] [PATH...]",
		"Keeps every session the agents write in the store, for good: imports each new\n"+
			"or grown session file, as import does, from PATH (files or folders) or, without\n"+
			"PATH, from where the agents keep them (see import; --agent narrows to those\n"+
			"agents' folders). A session file the agent deletes leaves its session as it\n"+
			"was: meta.json's source records when it was found gone, and ls shows\n"+
			"\"(source gone)\". A file the agent rewrote (it did not only grow) is stored\n"+
			"again as a new session; the old one keeps what it was, its source's\n"+
			"\"replaced_by\" naming the new one. Nothing stored is ever removed.\n"+
			"Prints a line for each session stored or found gone, and each error with the\n"+
			"file it concerns; one bad file never stops the others. A file of the size and\n"+
			"time recorded when it was stored is not read again. As import does, it has the\n"+
			"store keep the sizes of each stored session's transcripts (index/sizes/).\n"+
			"With --watch, keeps following the folders (inotify) until interrupted,\n"+
			"catching up first on what changed while it was not running: a line the agent\n"+
			"writes is in the store, and in a mount of it, within a second.\n"+
			"--unit prints a systemd user unit that runs sync --watch with this command's\n"+
			"--store and PATHs; the README shows how to install it.")
	watch := c.fs.Bool("watch", false, "keep following the folders until interrupted")
	agents := c.fs.StringArray("agent", nil, "only the folders of agent `A` (claude-code, codex, gemini); repeat for several")
	unit := c.fs.Bool("unit", false, "print a systemd user unit that runs sync --watch, and exit")
	rest, code, ok := c.parse(args, 0, -1)
	if !ok {
		return code
	}
	var formats []importer.Format
	for _, a := range *agents {
		switch f := importer.Format(a); f {
		case importer.ClaudeCode, importer.Codex, importer.Gemini:
			formats = append(formats, f)
		default:
			return c.usageError(fmt.Sprintf("--agent %q: want claude-code, codex or gemini", a))
		}
	}
	if len(rest) > 0 && len(formats) > 0 {
		return c.usageError("--agent chooses the agents' own folders: give it or PATH, not both")
	}
	if *unit {
		return printUnit(c, rest, *agents)
	}
	// PATHs must be there; the agents' own folders, watched, may come
	// later (a service set up before an agent first ran).
	folders, awaited := rest, []string(nil)
	var err error
	switch {
	case len(rest) == 0 && *watch:
		if awaited, err = agentFolderPaths(importer.AgentFoldersToBe, formats); err != nil {
			return c.fail(err)
		}
	case len(rest) == 0:
		if folders, err = agentFolders("sync", formats...); err != nil {
			return c.fail(err)
		}
	}
	st, err := c.open()
	if err != nil {
		return c.fail(err)
	}
	failed := 0
	sizes := startKeepingSizes(st, c.warn)
	syncer := importer.NewSyncer(importer.New(st, importer.Options{Sync: true}), folders, awaited, func(r importer.Result) {
		if line := syncLine(r); r.Err != nil {
			c.warn(errors.New(line))
			failed++
		} else {
			fmt.Println(line)
		}
		if r.Stored {
			sizes.add(r.Name)
		}
	})
	if !*watch {
		counts, err := syncer.Scan()
		sizes.wait()
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(os.Stderr, "sessfs sync: %s\n", describeScan(counts))
		if failed > 0 {
			return exitFail
		}
		return exitOK
	}
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sigs
		close(stop)
	}()
	first := true
	err = syncer.Watch(stop, rescanEvery, func(counts importer.ScanCounts, err error) {
		switch {
		case err != nil:
			c.warn(err)
		case first:
			fmt.Fprintf(os.Stderr, "sessfs sync: %s; watching %s\n", describeScan(counts), strings.Join(append(folders, awaited...), ", "))
		}
		first = false
	})
	sizes.abandon()
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}

// syncLine is the log line of one file's Result.
func syncLine(r importer.Result) string {
	switch {
	case r.Err != nil && r.Path == "":
		return r.Err.Error()
	case r.Err != nil:
		return fmt.Sprintf("%s: %v", r.Path, r.Err)
	case r.Gone:
		return fmt.Sprintf("%s: source gone (%s); the session stays as it was", r.Name, r.Path)
	case r.Replaced != "":
		return fmt.Sprintf("%s: new, from %s, which the agent rewrote; %s keeps what it was", r.Name, r.Path, r.Replaced)
	case r.New:
		return fmt.Sprintf("%s: new, from %s", r.Name, r.Path)
	}
	return fmt.Sprintf("%s: grew, from %s", r.Name, r.Path)
}

// describeScan says what a scan went through, in a few words.
func describeScan(c importer.ScanCounts) string {
	s := fmt.Sprintf("%d files: %d stored, %d unchanged", c.Files, c.Stored, c.Unchanged)
	if c.Gone > 0 {
		s += fmt.Sprintf(", %s gone", plural(c.Gone, "source"))
	}
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d failed", c.Failed)
	}
	return s
}

// printUnit prints the systemd user unit of sync --watch with this
// command's store, paths and agents, and the agents' folders the
// environment names (a user service does not see the login shell's).
func printUnit(c *cli, paths, agents []string) int {
	exe, err := os.Executable()
	if err != nil {
		return c.fail(fmt.Errorf("cannot tell where this sessfs is: %w", err))
	}
	store := c.store
	if store == "" {
		if store, err = defaultStore(); err != nil {
			return c.fail(err)
		}
	}
	if store, err = absStore(store); err != nil {
		return c.fail(err)
	}
	line := []string{unitQuote(exe), "sync", "--watch", "--store", unitQuote(store)}
	for _, a := range agents {
		line = append(line, "--agent", a)
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return c.fail(err)
		}
		line = append(line, unitQuote(abs))
	}
	text := strings.Replace(unitFile, "@EXEC@", strings.Join(line, " "), 1)
	var env []string
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, "Environment="+unitQuote(k+"="+v))
		}
	}
	if len(env) > 0 {
		text = strings.Replace(text, "Restart=on-failure\n", strings.Join(env, "\n")+"\nRestart=on-failure\n", 1)
	}
	fmt.Print(text)
	return exitOK
}

// unitQuote writes s as one word of a systemd unit's command line or
// assignment: quoted when it needs it, with systemd's specifiers (%) and
// variables ($) kept literal.
func unitQuote(s string) string {
	s = strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
	if !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
