// Command sessfs manages a sessfs store from the shell: it mounts it
// (mount, umount; mount --source shows an agent's own folder), creates,
// lists (ls, last), finds (search, index), appends to, shows, replays,
// forks, checkpoints, renames, merges, archives, trashes and sweeps
// sessions and their branches,
// imports Claude Code and Codex sessions and exports any session, continues
// a branch in Claude Code or Codex (resume), reports
// the tokens sessions spent and their cost (usage), and checks and
// repairs the store (fsck). The commands are listed in main.go's table;
// each is in cmd_<name>.go but umount (in cmd_mount.go), unarchive
// (cmd_archive.go), branch rename and rm (cmd_branch.go) and help
// (main.go). A SESSION argument becomes a session in one place,
// resolve.go. DESIGN.md is the contract they follow.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"
)

// version is set at build time: go build -ldflags "-X main.version=v1.2.3".
var version = "dev"

// Exit codes: 2 for a command line that cannot be run as typed, 1 for a
// command that ran and failed.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// command is one entry of the dispatch table.
type command struct {
	name    string
	summary string // one line, shown by `sessfs help`
	run     func(args []string) int
}

// commands is the dispatch table, in the order `sessfs help` lists it. It is
// a function rather than a variable because `help` reads the table, which
// Go would reject as an initialization cycle. To add a command, add a line.
func commands() []command {
	return []command{
		{"mount", "show the store as files at a mount point", runMount},
		{"umount", "unmount a sessfs mount", runUmount},
		{"new", "create a session and print its name", runNew},
		{"import", "import Claude Code, Codex and Gemini CLI sessions", runImport},
		{"sync", "keep every agent session in the store (--watch: as they are written)", runSync},
		{"copy", "copy sessions to another store, a folder or a PostgreSQL database", runCopy},
		{"ls", "list sessions, newest first", runLs},
		{"last", "print the name of the most recently active session", runLast},
		{"search", "find the messages that match a query, best first", runSearch},
		{"index", "build the search index again (index --rebuild)", runIndex},
		{"append", "add messages to a session", runAppend},
		{"show", "write a branch of a session as Markdown or JSON lines", runShow},
		{"export", "write a session as Markdown, HTML, JSON, JSON lines, its original file or an agent's session", runExport},
		{"resume", "continue a branch of a session in Claude Code or Codex", runResume},
		{"fork", "create a branch from another at its head, a turn or a message", runFork},
		{"branches", "list the branches of a session (--tree: draw the fork tree)", runBranches},
		{"merge", "merge a branch into another: append its messages, or replace the history", runMerge},
		{"checkpoint", "mark the head of a branch with a name, or list the marks", runCheckpoint},
		{"compact", "make a branch that starts with a summary of a branch's earlier turns", runCompact},
		{"event", "append a typed event (usage, turn_end, run_errored, …) to a branch", runEvent},
		{"snapshot", "record files as they are before a turn edits them", runSnapshot},
		{"revert-code", "put the files snapshotted after a turn back as they were then", runRevertCode},
		{"replay", "play a branch at the pace it was written, from a turn or checkpoint", runReplay},
		{"usage", "report the tokens sessions spent and their cost, by day, project, model or session", runUsage},
		{"branch", "rename or remove a branch (branch rename | branch rm)", runBranch},
		{"rename", "rename a session", runRename},
		{"rm", "move sessions to the trash", runRm},
		{"restore", "bring a session back from the trash", runRestore},
		{"archive", "move sessions out of the default listing", runArchive},
		{"unarchive", "bring archived sessions back to the default listing", runUnarchive},
		{"trash", "list the sessions in the trash", runTrash},
		{"sweep", "archive idle sessions and purge old trash", runSweep},
		{"fsck", "check the store, and repair it with --repair", runFsck},
		{"migrate", "upgrade a store written by an earlier sessfs to this format, in place", runMigrate},
		{"db", "create or upgrade a PostgreSQL store's schema (db migrate)", runDB},
		{"version", "print the version of sessfs and of its store format", runVersion},
		{"help", "list the commands, or show the usage of one", runHelp},
	}
}

func main() {
	stop := startProfile()
	code := run(os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the exit code.
func run(args []string) int {
	args = moveStoreFlag(args)
	if len(args) == 0 {
		printCommands(os.Stdout)
		return exitOK
	}
	name := args[0]
	if name == "-h" || name == "--help" {
		name = "help"
	}
	for _, c := range commands() {
		if c.name == name {
			return runGuarded(c, args[1:])
		}
	}
	fmt.Fprintf(os.Stderr, "sessfs: unknown command %q (run 'sessfs help' for the list)\n", name)
	return exitUsage
}

// moveStoreFlag lets --store come before the command (`sessfs --store D ls`)
// by moving it after the command name, where every command parses it.
func moveStoreFlag(args []string) []string {
	var store []string
	for len(args) > 0 {
		switch {
		case args[0] == "--store" && len(args) > 1:
			store, args = append(store, args[:2]...), args[2:]
			continue
		case strings.HasPrefix(args[0], "--store="):
			store, args = append(store, args[0]), args[1:]
			continue
		}
		break
	}
	if len(store) == 0 || len(args) == 0 {
		return args
	}
	return append(append([]string{args[0]}, store...), args[1:]...)
}

// runGuarded runs a command and turns a panic into one line: users get a
// message, not a Go stack, unless they ask for it with SESSFS_DEBUG.
func runGuarded(c command, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "sessfs %s: internal error: %v (set SESSFS_DEBUG=1 for details)\n", c.name, r)
			if os.Getenv("SESSFS_DEBUG") != "" {
				os.Stderr.Write(debug.Stack())
			}
			code = exitFail
		}
	}()
	return c.run(args)
}

func printCommands(w io.Writer) {
	fmt.Fprintln(w, "sessfs shows the sessions of AI agents as files; this command manages its store.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: sessfs COMMAND [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command takes --store DIR (or a postgres:// URL) and -h/--help. Run 'sessfs help COMMAND' for one command's usage.")
}

// runHelp lists the commands, or runs `sessfs COMMAND --help`.
func runHelp(args []string) int {
	c := newCLI("help", "[COMMAND [SUBCOMMAND]]", "Lists the commands, or shows the usage of one.")
	rest, code, ok := c.parse(args, 0, 2)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		printCommands(os.Stdout)
		return exitOK
	}
	if rest[0] == "help" {
		c.printUsage(os.Stdout)
		return exitOK
	}
	for _, cmd := range commands() {
		if cmd.name == rest[0] {
			return cmd.run(append(rest[1:], "--help"))
		}
	}
	return c.usageError(fmt.Sprintf("unknown command %q (commands: %s)", rest[0], commandNames()))
}

func commandNames() string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}
