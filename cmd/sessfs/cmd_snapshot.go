package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sessfs/sessfs/backing"
)

func runSnapshot(args []string) int {
	c := newCLI("snapshot", "[--branch B] [--turn N] SESSION PATH...",
		`Records each PATH's content as it is now, as its state before turn N of
branch B of SESSION (default: its default branch), for sessfs revert-code: a
harness runs it before a turn edits a file. N defaults to the branch's last
turn (1 in a branch with no turn yet); it may be the next one (the last + 1),
for a harness that snapshots before it appends the prompt. A PATH that does
not exist is recorded as such (reverting deletes it). The first snapshot of a
path in a turn wins: a PATH the turn has one of already is left as it is and
said so. Each is an event line appended to the branch (README: File snapshots),
all in one append; turns/N/files/ in the mount shows them. A file larger than
the store takes in one line (64 MiB by default, less for other bytes than
UTF-8 text, kept in base64) is refused, and nothing is recorded.`)
	branch := c.fs.String("branch", "", "the branch `B` (default: the default branch)")
	turn := c.fs.Int("turn", 0, "the turn `N` the state comes before (default: the branch's last turn)")
	rest, code, ok := c.parse(args, 2, -1)
	if !ok {
		return code
	}
	st, s, v, err := c.storeBranchView(rest[0], *branch)
	if err != nil {
		return c.fail(err)
	}
	n := *turn
	if !c.fs.Changed("turn") {
		n = max(v.Turns(), 1)
	}
	if n < 1 || n > v.Turns()+1 {
		return c.usageError(fmt.Sprintf("--turn %d: branch %q has %s; a snapshot is for one of them or the next", n, v.Branch().Name, backing.Plural(v.Turns(), "turn")))
	}
	all, err := backing.Snapshots(v, backing.Meta{}, nil)
	if err != nil {
		return c.fail(err)
	}
	have := map[string]bool{}
	for _, sn := range backing.TurnSnapshots(all, n) {
		have[sn.Path] = true
	}
	var lines [][]byte
	var said []string
	for _, p := range rest[1:] {
		abs, err := filepath.Abs(p)
		if err != nil {
			return c.fail(err)
		}
		if have[abs] {
			said = append(said, fmt.Sprintf("turn %d: %s (kept: the turn has it already)", n, abs))
			continue
		}
		have[abs] = true
		line, what, err := snapshotOf(abs, n, st.MaxMessage())
		if err != nil {
			return c.fail(err)
		}
		lines = append(lines, line)
		said = append(said, fmt.Sprintf("turn %d: %s (%s)", n, abs, what))
	}
	if len(lines) > 0 {
		if err := s.AppendID(v.Branch().ID, lines); err != nil {
			return c.fail(err)
		}
	}
	for _, l := range said {
		fmt.Println(l)
	}
	return exitOK
}

// snapshotOf is the event line recording path as it is now, and what it
// recorded, in words.
func snapshotOf(path string, turn int, limit int64) ([]byte, string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		line, err := backing.SnapshotEvent(path, turn, nil, false, 0)
		return line, "did not exist", err
	}
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() {
		return nil, "", fmt.Errorf("%s: not a regular file: only files are snapshotted", path)
	}
	if fi.Size() > limit {
		return nil, "", fmt.Errorf("%s: %d bytes, larger than the store's limit of %d bytes for one line", path, fi.Size(), limit)
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	line, err := backing.SnapshotEvent(path, turn, content, true, fi.Mode())
	if err == nil && int64(len(line)) > limit {
		err = fmt.Errorf("%s: %d bytes make a line of %d, larger than the store's limit of %d bytes", path, len(content), len(line), limit)
	}
	return line, backing.Plural(len(content), "byte"), err
}
