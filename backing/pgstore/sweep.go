package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sessfs/sessfs/backing"
)

const day = 24 * time.Hour

// The lifecycle policy's keys in the config table, in days.
const (
	configArchiveAfter = "archive_after_days"
	configPurgeAfter   = "purge_after_days"
)

// SweepConfig reads the lifecycle policy from the config table; a key
// not set is a rule off.
func (st *Store) SweepConfig() (backing.SweepConfig, error) {
	ctx, cancel := st.ctx()
	defer cancel()
	rows, err := st.pool.Query(ctx, `SELECT key, value FROM config WHERE key IN ($1, $2)`, configArchiveAfter, configPurgeAfter)
	if err != nil {
		return backing.SweepConfig{}, err
	}
	var cfg backing.SweepConfig
	var key, value string
	_, err = pgx.ForEachRow(rows, []any{&key, &value}, func() error {
		days, err := strconv.Atoi(value)
		if err != nil || days < 0 {
			return fmt.Errorf("%w: config %s = %q: not a number of days", backing.ErrInvalid, key, value)
		}
		if key == configArchiveAfter {
			cfg.ArchiveAfter = time.Duration(days) * day
		} else {
			cfg.PurgeAfter = time.Duration(days) * day
		}
		return nil
	})
	return cfg, err
}

// PolicyLocation says where a user sets the policy.
func (st *Store) PolicyLocation() string {
	return fmt.Sprintf("the config table of %s (keys %s and %s)", st.loc, configArchiveAfter, configPurgeAfter)
}

// Sweep archives the active sessions idle for ArchiveAfter and deletes
// for good those in the trash for PurgeAfter, as of t.
func (st *Store) Sweep(cfg backing.SweepConfig, t time.Time, dryRun bool) (backing.SweepReport, error) {
	return backing.SweepWith(st, cfg, t, dryRun, st.purge)
}

// purge deletes a session for good if it is still in the trash.
func (st *Store) purge(id string) error {
	err := st.inTx(func(ctx context.Context, tx pgx.Tx, cs *changes) error {
		state, _, err := lockSession(ctx, tx, id, true)
		if err != nil || state != backing.StateTrashed {
			return err // restored meanwhile: nothing to do
		}
		for _, table := range []string{"messages", "branches", "sessions"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE session_id = $1`, id); err != nil {
				return err
			}
		}
		return st.record(ctx, tx, cs, backing.Change{Kind: backing.NamesChanged, Session: id})
	})
	if err == nil {
		st.mu.Lock()
		delete(st.sessions, id)
		st.mu.Unlock()
	}
	return err
}
