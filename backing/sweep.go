package backing

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// SweepConfig is the lifecycle policy; a zero duration turns a rule off,
// and both are off unless the user sets them.
type SweepConfig struct {
	ArchiveAfter time.Duration // archive active sessions idle this long
	PurgeAfter   time.Duration // delete trashed sessions this long in the trash
}

// Config is the store's config.json. It is optional; every field's zero
// value is the default.
type Config struct {
	ArchiveAfterDays int `json:"archive_after_days,omitempty"`
	PurgeAfterDays   int `json:"purge_after_days,omitempty"`
}

const day = 24 * time.Hour

// SweepConfig reads the lifecycle policy from the store's config.json.
func (st *Store) SweepConfig() (SweepConfig, error) {
	data, err := readFile(st.path("config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return SweepConfig{}, nil
	}
	if err != nil {
		return SweepConfig{}, err
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return SweepConfig{}, fmt.Errorf("%w: %s: %v", ErrInvalid, st.path("config.json"), err)
	}
	return SweepConfig{
		ArchiveAfter: time.Duration(c.ArchiveAfterDays) * day,
		PurgeAfter:   time.Duration(c.PurgeAfterDays) * day,
	}, nil
}

// SweepReport lists what a sweep did (or would do, on a dry run).
type SweepReport struct {
	Archived []string // names
	Purged   []string // ids
}

// Sweep applies the lifecycle policy as of time t: active sessions with no
// append for ArchiveAfter are archived, trashed sessions older than
// PurgeAfter are deleted for good.
func (st *Store) Sweep(cfg SweepConfig, t time.Time, dryRun bool) (SweepReport, error) {
	var rep SweepReport
	if cfg.ArchiveAfter <= 0 && cfg.PurgeAfter <= 0 {
		return rep, nil
	}
	list, err := st.List(true)
	if err != nil {
		return rep, err
	}
	for _, info := range list {
		if info.Err != nil {
			continue // fsck reports it; a sweep never touches what it cannot read
		}
		switch {
		case info.State == StateActive && cfg.ArchiveAfter > 0 && t.Sub(info.LastActivity) > cfg.ArchiveAfter:
			if !dryRun {
				if err := st.Archive(info.Name); err != nil {
					return rep, err
				}
			}
			rep.Archived = append(rep.Archived, info.Name)
		case info.State == StateTrashed && cfg.PurgeAfter > 0 && !info.Trashed.IsZero() && t.Sub(info.Trashed) > cfg.PurgeAfter:
			if !dryRun {
				if err := st.purgeTrashed(info.ID); err != nil {
					return rep, err
				}
			}
			rep.Purged = append(rep.Purged, info.ID)
		}
	}
	return rep, nil
}

// purgeTrashed deletes a session if it is still in the trash.
func (st *Store) purgeTrashed(id string) error {
	unlock, err := st.nsLock()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := readLink(st.path("trash", id)); err != nil {
		return nil // restored meanwhile
	}
	return st.purge(id)
}
