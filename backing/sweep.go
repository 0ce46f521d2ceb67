package backing

import "time"

// SweepWith is the lifecycle policy's rule, the same for every engine:
// as of t, an active session with no append for cfg.ArchiveAfter is
// archived and a session in the trash for cfg.PurgeAfter is deleted for
// good, by purge, which the engine gives (it does nothing to a session
// restored meanwhile). A session that cannot be read is never touched: a
// check of the store reports it. A dry run only reports.
func SweepWith(st Store, cfg SweepConfig, t time.Time, dryRun bool, purge func(id string) error) (SweepReport, error) {
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
			continue
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
				if err := purge(info.ID); err != nil {
					return rep, err
				}
			}
			rep.Purged = append(rep.Purged, info.ID)
		}
	}
	return rep, nil
}
