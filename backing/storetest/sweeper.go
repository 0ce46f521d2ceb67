package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// testSweeper covers the optional backing.Sweeper; an engine without it
// skips these.
func testSweeper(t *testing.T, open Opener) {
	cases(t, open, map[string]func(*testing.T, backing.Store){
		"Config":     sweepConfig,
		"Archive":    sweepArchive,
		"Purge":      sweepPurge,
		"Off":        sweepOff,
		"DryRunNoop": sweepDryRun,
	})
}

func sweeper(t *testing.T, st backing.Store) backing.Sweeper {
	t.Helper()
	sw, ok := st.(backing.Sweeper)
	if !ok {
		t.Skip("the engine has no Sweeper")
	}
	return sw
}

const day = 24 * time.Hour

func sweepConfig(t *testing.T, st backing.Store) {
	sw := sweeper(t, st)
	cfg, err := sw.SweepConfig()
	if err != nil || cfg.ArchiveAfter != 0 || cfg.PurgeAfter != 0 {
		t.Errorf("SweepConfig of a new store = %+v, %v; want both rules off", cfg, err)
	}
	if sw.PolicyLocation() == "" {
		t.Error("PolicyLocation is empty")
	}
}

// sweepArchive: a session idle for ArchiveAfter is archived; a busy one,
// an archived one and a trashed one are left.
func sweepArchive(t *testing.T, st backing.Store) {
	sw := sweeper(t, st)
	idle := newSession(t, st, "idle")
	newSession(t, st, "shelved")
	if err := st.Archive("shelved"); err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "binned")
	if err := st.Trash("binned"); err != nil {
		t.Fatal(err)
	}
	cfg := backing.SweepConfig{ArchiveAfter: 30 * day}
	// As of now nothing is idle.
	if rep, err := sw.Sweep(cfg, time.Now(), false); err != nil || len(rep.Archived)+len(rep.Purged) != 0 {
		t.Errorf("Sweep as of now = %+v, %v; want nothing done", rep, err)
	}
	rep, err := sw.Sweep(cfg, time.Now().Add(40*day), false)
	if err != nil || !slices.Equal(rep.Archived, []string{"idle"}) || len(rep.Purged) != 0 {
		t.Fatalf("Sweep 40 days on = %+v, %v; want idle archived", rep, err)
	}
	if _, state, err := st.Lookup("idle"); err != nil || state != backing.StateArchived {
		t.Errorf("idle after the sweep: %q, %v", state, err)
	}
	if names, _ := st.ArchivedNames(); !slices.Equal(names, []string{"idle", "shelved"}) {
		t.Errorf("ArchivedNames = %q", names)
	}
	if ids, _ := st.TrashedIDs(); len(ids) != 1 {
		t.Errorf("TrashedIDs = %q: an archive rule purged", ids)
	}
	if idle.Trashed() {
		t.Error("the sweep put idle in the trash")
	}
}

// sweepPurge: a session in the trash for PurgeAfter is gone for good.
func sweepPurge(t *testing.T, st backing.Store) {
	sw := sweeper(t, st)
	gone := newSession(t, st, "gone")
	appendOK(t, gone, "", qa("", 1)...)
	if err := st.Trash("gone"); err != nil {
		t.Fatal(err)
	}
	newSession(t, st, "kept")
	cfg := backing.SweepConfig{PurgeAfter: 30 * day}
	if rep, err := sw.Sweep(cfg, time.Now().Add(day), false); err != nil || len(rep.Purged) != 0 {
		t.Errorf("Sweep a day on = %+v, %v; want nothing purged", rep, err)
	}
	rep, err := sw.Sweep(cfg, time.Now().Add(40*day), false)
	if err != nil || !slices.Equal(rep.Purged, []string{gone.ID()}) || len(rep.Archived) != 0 {
		t.Fatalf("Sweep 40 days on = %+v, %v; want gone purged", rep, err)
	}
	_, err = st.SessionByID(gone.ID())
	wantErr(t, "SessionByID of a purged session", err, backing.ErrNotFound)
	if ids, _ := st.TrashedIDs(); len(ids) != 0 {
		t.Errorf("TrashedIDs after purge = %q", ids)
	}
	_, err = st.Restore(gone.ID(), "")
	wantErr(t, "Restore of a purged session", err, backing.ErrNotFound)
	if names, _ := st.Names(); !slices.Equal(names, []string{"kept"}) {
		t.Errorf("Names = %q", names)
	}
}

// sweepOff: with both rules off a sweep does nothing.
func sweepOff(t *testing.T, st backing.Store) {
	sw := sweeper(t, st)
	newSession(t, st, "a")
	newSession(t, st, "b")
	if err := st.Trash("b"); err != nil {
		t.Fatal(err)
	}
	rep, err := sw.Sweep(backing.SweepConfig{}, time.Now().Add(1000*day), false)
	if err != nil || len(rep.Archived)+len(rep.Purged) != 0 {
		t.Errorf("Sweep with no rules = %+v, %v", rep, err)
	}
	if names, _ := st.Names(); len(names) != 1 {
		t.Errorf("Names = %q", names)
	}
}

// sweepDryRun reports what a sweep would do and changes nothing.
func sweepDryRun(t *testing.T, st backing.Store) {
	sw := sweeper(t, st)
	newSession(t, st, "idle")
	gone := newSession(t, st, "gone")
	if err := st.Trash("gone"); err != nil {
		t.Fatal(err)
	}
	cfg := backing.SweepConfig{ArchiveAfter: 30 * day, PurgeAfter: 30 * day}
	later := time.Now().Add(40 * day)
	rep, err := sw.Sweep(cfg, later, true)
	if err != nil || !slices.Equal(rep.Archived, []string{"idle"}) || !slices.Equal(rep.Purged, []string{gone.ID()}) {
		t.Fatalf("dry run = %+v, %v; want idle archived and gone purged", rep, err)
	}
	if names, _ := st.Names(); !slices.Equal(names, []string{"idle"}) {
		t.Errorf("a dry run changed Names: %q", names)
	}
	if ids, _ := st.TrashedIDs(); !slices.Equal(ids, []string{gone.ID()}) {
		t.Errorf("a dry run changed TrashedIDs: %q", ids)
	}
	if _, err := st.SessionByID(gone.ID()); err != nil {
		t.Errorf("a dry run purged: %v", err)
	}
	// The same sweep for real does what the dry run said.
	real, err := sw.Sweep(cfg, later, false)
	if err != nil || !slices.Equal(real.Archived, rep.Archived) || !slices.Equal(real.Purged, rep.Purged) {
		t.Errorf("sweep = %+v, %v; the dry run said %+v", real, err, rep)
	}
}
