package main

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestNoArgumentsListsCommands(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"--help"}} {
		r := runIn(t, "", args...)
		if r.code != 0 {
			t.Fatalf("sessfs %v: %v", args, r)
		}
		for _, c := range commands() {
			if !strings.Contains(r.stdout, "  "+c.name+" ") {
				t.Errorf("sessfs %v does not list %q:\n%s", args, c.name, r.stdout)
			}
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	r := runIn(t, "", "frobnicate")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Fatalf("want exit 2 and a message: %v", r)
	}
}

// Every command answers -h and --help on stdout with exit 0, and its usage
// names it.
func TestHelpOfEveryCommand(t *testing.T) {
	names := [][]string{{"branch", "rename"}, {"branch", "rm"}}
	for _, c := range commands() {
		names = append(names, []string{c.name})
	}
	for _, name := range names {
		for _, flag := range []string{"-h", "--help"} {
			r := runIn(t, "", append(name, flag)...)
			want := "usage: sessfs " + strings.Join(name, " ")
			if r.code != 0 || !strings.Contains(r.stdout, want) || r.stderr != "" {
				t.Errorf("sessfs %v %s: want exit 0 and %q on stdout: %v", name, flag, want, r)
			}
			if name[0] != "help" && !strings.Contains(r.stdout, "--store") {
				t.Errorf("sessfs %v %s: usage does not mention --store:\n%s", name, flag, r.stdout)
			}
		}
	}
	// `sessfs help show` is `sessfs show --help`.
	r := runIn(t, "", "help", "show")
	if r.code != 0 || !strings.Contains(r.stdout, "usage: sessfs show") {
		t.Errorf("sessfs help show: %v", r)
	}
}

// The help of a command says what it does precisely: what show's header
// holds and what --turn leaves out, that counts of messages leave events
// out, what append refuses.
func TestHelpTexts(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
	}{
		{"show", []string{"opens with a header: the title", "the agent and its version", "last active (UTC", "With --turn N, only turn N", "without the\nheader", "show only turn N (1-based), without the header"}},
		{"branches", []string{"visible messages", "Events (the lines an import keeps\nthat are not conversation) are not counted"}},
		{"fork", []string{"the first N visible messages", "are not counted", "keep the first N visible messages (events not counted)"}},
		{"append", []string{"An empty or blank\nTEXT is refused (exit 2)", "empty or blank standard input (exit 1)"}},
		{"umount", []string{"A path where no sessfs is mounted (a missing one too) is refused"}},
		{"merge", []string{"found from the fork\npoints however deep the forks go", "kept as branch INTO-before-merge-N", "The default branch is the root of the tree and cannot be cut", "not stored again"}},
		{"branches", []string{"--tree draws the fork tree instead, as the session folder's branches.txt"}},
		{"replay", []string{"divided by X (default 1:\nreal time)", "A wait is at most 5 s", "turns count from\n1", "--checkpoint NAME starts at checkpoint", "--json prints each stored line"}},
		{"compact", []string{`{"role":"event","content":"","event":"compaction","data":{"summary":"…","boundary_turn":TURN,`, `{"role":"user","context":"compaction","content":"…"}`, "Without --at the summary stands for every\nturn", "Branch B and every other branch are not\nchanged"}},
		{"checkpoint", []string{`{"role":"event","content":"","event":"checkpoint","data":{"name":"NAME"}}`, "A\nname marked again moves"}},
	} {
		r := runIn(t, "", c.cmd, "--help")
		for _, want := range c.want {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("sessfs %s --help lacks %q:\n%s", c.cmd, want, r.stdout)
			}
		}
	}
}

func TestUnknownFlag(t *testing.T) {
	s := newStore(t)
	for _, c := range commands() {
		s.fails(2, "unknown flag: --bogus", "", c.name, "--bogus")
	}
	s.fails(2, "unknown flag: --bogus", "", "branch", "rm", "--bogus", "x", "y")
	s.fails(2, "unknown shorthand flag", "", "ls", "-x")
}

func TestMissingAndExtraArguments(t *testing.T) {
	s := newStore(t)
	for _, args := range [][]string{
		{"append"}, {"append", "s"}, {"show"}, {"fork", "s"}, {"branches"},
		{"rename", "a"}, {"rm"}, {"restore"}, {"archive"}, {"unarchive"},
		{"branch"}, {"branch", "rename", "s", "a"}, {"branch", "rm", "s"},
	} {
		s.fails(2, "usage: sessfs "+args[0], "", args[0], args[1:]...)
	}
	s.fails(2, "too many arguments: b", "", "new", "a", "b")
	s.fails(2, "too many arguments", "", "ls", "x")
	s.fails(2, `unknown subcommand "frob"`, "", "branch", "frob")
}

func TestVersion(t *testing.T) {
	s := newStore(t)
	out := s.ok("version")
	for _, want := range []string{"sessfs dev", "store format 3", runtime.Version()} {
		if !strings.Contains(out, want) {
			t.Errorf("version %q lacks %q", out, want)
		}
	}
	if storeFormat != 1 {
		t.Log("store format is now", storeFormat, "; update this test")
	}
}

// --store may come before the command name too.
func TestStoreBeforeCommand(t *testing.T) {
	s := newStore(t)
	r := runIn(t, "", "--store", s.dir, "new", "early")
	if r.code != 0 || r.stdout != "early\n" {
		t.Fatalf("sessfs --store DIR new: %v", r)
	}
	if _, ok := s.session("early", "active"); !ok {
		t.Fatal("session not created in --store")
	}
	r = runIn(t, "", "--store="+s.dir, "ls")
	if r.code != 0 || !strings.Contains(r.stdout, "early") {
		t.Fatalf("sessfs --store=DIR ls: %v", r)
	}
}

func TestNotFound(t *testing.T) {
	s := newStore(t)
	s.fails(1, `sessfs show: session "nope": not found`, "", "show", "nope")
	s.fails(1, `session "nope": not found`, "", "append", "nope", "hi")
	s.fails(1, `session "nope": not found`, "", "rename", "nope", "x")
	s.ok("new", "s")
	s.fails(1, `branch "nope": not found`, "", "show", "--branch", "nope", "s")
	s.fails(1, `no session "s" in the trash`, "", "restore", "s")
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "30d": 30 * 24 * time.Hour, "12h": 12 * time.Hour, "90m": 90 * time.Minute, "0d": 0, "1h30m": 90 * time.Minute,
	} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "-1d", "-5h", "3x", "1.5d", "99999999d"} {
		if _, err := parseAge(in); err == nil {
			t.Errorf("parseAge(%q) should fail", in)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"abc": "abc", "/tmp/x-1": "/tmp/x-1", "a b": "'a b'", "it's": `'it'\''s'`, "": "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
