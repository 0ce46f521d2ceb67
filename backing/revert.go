package backing

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Reverting code (sessfs revert-code), the one place its rule is written:
// reverting to turn N puts back every file snapshotted in a turn after N
// as its earliest such snapshot has it (snapshots.go), deleting the ones
// that did not exist then, and touches nothing else: not the
// conversation, not a file no turn after N snapshotted.
//
// Overwriting or deleting a file is unsafe when someone may have changed
// it since the agent last did, work a revert would lose. sessfs never
// sees what the agent wrote, only what was there before, so a file is
// taken for the agent's when its content is one a snapshot of it
// recorded (a revert made before, a file no turn changed in the end), or
// when it was last modified no later than the end of the last turn that
// snapshotted it (the time of that turn's last message: the agent edits
// before it answers). A file modified after that, by a person or a tool
// outside the turns, is unsafe; so is a path that is not a regular file
// (a folder, a symbolic link). Restoring a file that is gone loses
// nothing and is always safe. A turn that is still going on has no end
// yet: revert between turns, or --force.

// Revert actions.
const (
	RevertRestore = "restore" // the file is there: its content (or mode) is put back
	RevertCreate  = "create"  // the file is gone: it is made again
	RevertDelete  = "delete"  // the file did not exist before: it is removed
)

// RevertStep is one change reverting makes to a file.
type RevertStep struct {
	Path   string
	Action string   // RevertRestore, RevertCreate or RevertDelete
	To     Snapshot // the state put back
	// Unsafe says why the change may lose work ("" when it is safe).
	Unsafe string
}

// PlanRevert is what reverting the files of the branch v shows to turn
// to (0: before the first turn) changes, path by path in sorted order,
// reading the files as they are now; all is Snapshots of v. It changes
// nothing.
func PlanRevert(v View, all []Snapshot, to int) ([]RevertStep, error) {
	if to < 0 || to > v.Turns() {
		return nil, fmt.Errorf("%w: turn %d: branch %q has %s (0 reverts to before the first)", ErrNotFound, to, v.Branch().Name, Plural(v.Turns(), "turn"))
	}
	target := map[string]Snapshot{} // path → its earliest snapshot after to
	last := map[string]int{}        // path → the last turn that snapshotted it
	for _, s := range all {
		last[s.Path] = max(last[s.Path], s.Turn)
		if t, ok := target[s.Path]; s.Turn > to && (!ok || s.Turn < t.Turn) {
			target[s.Path] = s
		}
	}
	paths := make([]string, 0, len(target))
	for p := range target {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var steps []RevertStep
	for _, p := range paths {
		st, ok, err := planFile(v, all, target[p], last[p])
		if err != nil {
			return nil, err
		}
		if ok {
			steps = append(steps, st)
		}
	}
	return steps, nil
}

// planFile is the step that puts back to, if the file is not so already;
// lastTurn is the last turn that snapshotted it.
func planFile(v View, all []Snapshot, to Snapshot, lastTurn int) (RevertStep, bool, error) {
	st := RevertStep{Path: to.Path, To: to}
	fi, err := os.Lstat(to.Path)
	if errors.Is(err, fs.ErrNotExist) {
		st.Action = RevertCreate
		return st, to.Exists, nil
	}
	if err != nil {
		return st, false, err
	}
	st.Action = RevertRestore
	if !to.Exists {
		st.Action = RevertDelete
	}
	if !fi.Mode().IsRegular() {
		st.Unsafe = "not a regular file"
		return st, true, nil
	}
	disk, err := os.ReadFile(to.Path)
	if err != nil {
		return st, false, err
	}
	sum := sha256.Sum256(disk)
	hash := hex.EncodeToString(sum[:])
	if to.Exists {
		want, err := verifiedContent(v, to)
		if err != nil {
			return st, false, err
		}
		if bytes.Equal(disk, want) && (to.Mode == 0 || to.Mode == uint32(fi.Mode().Perm())) {
			return st, false, nil // as it was already
		}
	}
	known, err := knownContent(v, all, to.Path, disk, hash)
	if err != nil || known {
		return st, true, err
	}
	if end, ok := turnEnd(v, lastTurn); ok && fi.ModTime().After(end) {
		st.Unsafe = fmt.Sprintf("modified %s, after turn %d (the last that snapshotted it) ended %s",
			fi.ModTime().UTC().Format(time.RFC3339Nano), lastTurn, end.UTC().Format(time.RFC3339Nano))
	}
	return st, true, nil
}

// knownContent says whether disk (of sha256 hash) is the content some
// snapshot of path recorded.
func knownContent(v View, all []Snapshot, path string, disk []byte, hash string) (bool, error) {
	for _, s := range all {
		if s.Path != path || !s.Exists || int64(len(disk)) != s.Size {
			continue
		}
		if s.SHA256 != "" {
			if s.SHA256 == hash {
				return true, nil
			}
			continue
		}
		c, err := SnapshotContent(v, s)
		if err != nil {
			return false, err
		}
		if bytes.Equal(c, disk) {
			return true, nil
		}
	}
	return false, nil
}

// turnEnd is when turn k of v ended: the time of its last message; false
// for a turn the branch does not have yet, or whose last message has no
// time.
func turnEnd(v View, k int) (time.Time, bool) {
	if k > v.Turns() {
		return time.Time{}, false
	}
	_, to, err := v.TurnRange(k)
	if err != nil || to == 0 {
		return time.Time{}, false
	}
	msgs, err := v.Read(to-1, to)
	if err != nil || len(msgs) != 1 {
		return time.Time{}, false
	}
	return MessageTime(msgs[0].Raw)
}

// verifiedContent is snapshot s's content, checked against its sha256
// when it has one: a revert never writes bytes the snapshot did not hold.
func verifiedContent(v View, s Snapshot) ([]byte, error) {
	c, err := SnapshotContent(v, s)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(c); s.SHA256 != "" && hex.EncodeToString(sum[:]) != s.SHA256 {
		return nil, fmt.Errorf("%w: snapshot of %s in line %d: content does not match its sha256", ErrInvalid, s.Path, s.Index)
	}
	return c, nil
}

// ApplyRevert makes the changes of steps, in order, each file replaced
// atomically (written beside it, then renamed over it), and returns how
// many it made; it stops at the first that fails.
func ApplyRevert(v View, steps []RevertStep) (int, error) {
	for k, st := range steps {
		if err := applyStep(v, st); err != nil {
			return k, fmt.Errorf("%s %s: %w", st.Action, st.Path, err)
		}
	}
	return len(steps), nil
}

func applyStep(v View, st RevertStep) error {
	if st.Action == RevertDelete {
		return os.Remove(st.Path)
	}
	content, err := verifiedContent(v, st.To)
	if err != nil {
		return err
	}
	mode := fs.FileMode(st.To.Mode)
	if mode == 0 {
		mode = 0o644
		if fi, err := os.Stat(st.Path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	dir := filepath.Dir(st.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".sessfs-revert-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, st.Path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
