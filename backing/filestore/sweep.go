package filestore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Config is the store's config.json. It is optional; every field's zero
// value is the default.
type Config struct {
	ArchiveAfterDays int `json:"archive_after_days,omitempty"`
	PurgeAfterDays   int `json:"purge_after_days,omitempty"`
}

const day = 24 * time.Hour

// SweepConfig reads the lifecycle policy from the store's config.json.
func (st *Store) SweepConfig() (backing.SweepConfig, error) {
	data, err := readFile(st.path("config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return backing.SweepConfig{}, nil
	}
	if err != nil {
		return backing.SweepConfig{}, err
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return backing.SweepConfig{}, fmt.Errorf("%w: %s: %v", backing.ErrInvalid, st.path("config.json"), err)
	}
	return backing.SweepConfig{
		ArchiveAfter: time.Duration(c.ArchiveAfterDays) * day,
		PurgeAfter:   time.Duration(c.PurgeAfterDays) * day,
	}, nil
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

// PolicyLocation is where a user sets the lifecycle policy.
func (st *Store) PolicyLocation() string { return st.path("config.json") }
