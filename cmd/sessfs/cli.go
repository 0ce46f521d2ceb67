package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sessfs/sessfs/backing"
	"github.com/spf13/pflag"
)

// cli is what every subcommand shares: its name for messages, its flag set
// with --store and -h/--help, and the way it reports errors.
type cli struct {
	name     string // as typed after "sessfs": "show", "branch rename"
	synopsis string // what follows the name in the usage line
	about    string // what the command does, for --help
	fs       *pflag.FlagSet
	store    string
}

func newCLI(name, synopsis, about string) *cli {
	c := &cli{name: name, synopsis: synopsis, about: about}
	c.fs = pflag.NewFlagSet("sessfs "+name, pflag.ContinueOnError)
	c.fs.SetInterspersed(true)
	// pflag prints its own usage to stderr on -h and on errors; we print
	// ours instead: to stdout for -h, as one line for an error.
	c.fs.SetOutput(io.Discard)
	c.fs.Usage = func() {}
	c.fs.StringVar(&c.store, "store", "", "the store: a `DIR`, or a PostgreSQL database's postgres:// URL (default: $SESSFS_STORE, else $XDG_DATA_HOME/sessfs, else ~/.local/share/sessfs)")
	return c
}

// parse parses args and checks there are between min and max positional
// arguments (max < 0: no limit). When ok is false the command is over and
// exits with code: -h was answered, or a usage error was printed.
func (c *cli) parse(args []string, min, max int) (rest []string, code int, ok bool) {
	err := c.fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		c.printUsage(os.Stdout)
		return nil, exitOK, false
	}
	if err != nil {
		return nil, c.usageError(err.Error()), false
	}
	rest = c.fs.Args()
	switch {
	case len(rest) < min:
		return nil, c.usageError("missing arguments"), false
	case max >= 0 && len(rest) > max:
		return nil, c.usageError(fmt.Sprintf("too many arguments: %s", strings.Join(rest[max:], " "))), false
	}
	return rest, exitOK, true
}

func (c *cli) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: sessfs %s %s\n\n%s\n\nflags:\n%s", c.name, c.synopsis, c.about, c.fs.FlagUsages())
}

// usageError reports a command line that cannot run as typed, in one line
// that says where to find the usage, and returns exit code 2.
func (c *cli) usageError(msg string) int {
	fmt.Fprintf(os.Stderr, "sessfs %s: %s (usage: sessfs %s %s)\n", c.name, msg, c.name, c.synopsis)
	return exitUsage
}

// fail reports an error of the command in one line and returns exit code 1.
func (c *cli) fail(err error) int {
	c.warn(err)
	return exitFail
}

// warn reports an error without ending the command, for commands that go
// on with their other arguments.
func (c *cli) warn(err error) {
	fmt.Fprintf(os.Stderr, "sessfs %s: %s\n", c.name, errorMessage(err))
}

// storeArg is " --store DIR" when the user named a store, for a command
// line a message suggests: it must reach the same store.
func (c *cli) storeArg() string {
	if !c.fs.Changed("store") {
		return ""
	}
	return " --store " + shellQuote(c.store)
}

// open opens the store named by --store, or the default one.
func (c *cli) open() (backing.Store, error) {
	root := c.store
	if root == "" {
		var err error
		if root, err = defaultStore(); err != nil {
			return nil, err
		}
	}
	return openStore(root, true, false)
}

// session opens the store and the session a SESSION argument names
// (resolve: a name, an id, or a unique prefix of either).
func (c *cli) session(arg string) (backing.Session, error) {
	st, err := c.open()
	if err != nil {
		return nil, err
	}
	name, err := resolve(st, arg)
	if err != nil {
		return nil, err
	}
	return st.Session(name)
}

// branchView opens the session a SESSION argument names and a view of its
// branch named branch ("" the default one) as of now.
func (c *cli) branchView(arg, branch string) (backing.Session, backing.View, error) {
	_, s, v, err := c.storeBranchView(arg, branch)
	return s, v, err
}

// storeBranchView is branchView with the store it opened, for a command
// that asks the store too (its limits).
func (c *cli) storeBranchView(arg, branch string) (backing.Store, backing.Session, backing.View, error) {
	st, err := c.open()
	if err != nil {
		return nil, nil, nil, err
	}
	name, err := resolve(st, arg)
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := st.Session(name)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := s.Branch(branch)
	if err != nil {
		return nil, nil, nil, err
	}
	v, err := s.ViewID(b.ID)
	return st, s, v, err
}
