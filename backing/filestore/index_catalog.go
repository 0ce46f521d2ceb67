package filestore

import (
	"database/sql"
	"encoding/json"
	"slices"

	"github.com/sessfs/sessfs/backing"
)

// The catalog of the index: every session's row, read once and kept while
// the index is unchanged, because the mount's views list it at each ls
// and reading 10,000 rows takes 35 ms. This process's commits drop it
// (writer.commit); another's change PRAGMA data_version, which the one
// connection of the index (openIndexDB) sees.
type catalogCache struct {
	version int64
	entries []backing.Entry // newest activity first
	// The positions in entries of each project and tag, as groups
	// (backing.GroupPath), made at the first query of either: a view of
	// one group reads its own sessions, not all of them.
	projects, tags map[string][]int
}

// Catalog lists the sessions q matches, from the index; see backing.Finder.
func (st *Store) Catalog(q backing.CatalogQuery) ([]backing.Entry, error) {
	x := &st.idx
	var out []backing.Entry
	err := x.use(func(db *sql.DB) error {
		var version int64
		if err := db.QueryRow(`PRAGMA data_version`).Scan(&version); err != nil {
			return err
		}
		if x.catalog == nil || version != x.catalog.version {
			es, err := catalog(db)
			if err != nil {
				return err
			}
			x.catalog = &catalogCache{version: version, entries: es}
		}
		out = x.catalog.query(q)
		return nil
	})
	return out, err
}

func (c *catalogCache) query(q backing.CatalogQuery) []backing.Entry {
	var at []int // the positions q may match; nil: every one
	switch {
	case q.Project != "":
		at = c.inGroup(&c.projects, func(e backing.Entry) []string { return []string{e.Project} }, q.Project)
	case q.Tag != "":
		at = c.inGroup(&c.tags, func(e backing.Entry) []string { return e.Tags }, q.Tag)
	}
	var out []backing.Entry
	if at == nil {
		out = make([]backing.Entry, 0, len(c.entries))
		for _, e := range c.entries {
			if q.Matches(e) {
				out = append(out, e)
			}
		}
		return out
	}
	for _, i := range at {
		if q.Matches(c.entries[i]) {
			out = append(out, c.entries[i])
		}
	}
	return out
}

// inGroup is the positions, in order, of the entries with a group (of
// those of) that is g or below it, from the map of groups it makes the
// first time.
func (c *catalogCache) inGroup(groups *map[string][]int, of func(backing.Entry) []string, g string) []int {
	if *groups == nil {
		m := map[string][]int{}
		for i, e := range c.entries {
			for _, s := range of(e) {
				p := backing.GroupPath(s)
				if l := m[p]; p != "" && (len(l) == 0 || l[len(l)-1] != i) { // twice if two tags are one group
					m[p] = append(l, i)
				}
			}
		}
		*groups = m
	}
	at := []int{}
	for p, is := range *groups {
		if backing.InGroup(p, g) {
			at = append(at, is...)
		}
	}
	slices.Sort(at)
	return slices.Compact(at)
}

// catalog reads every session's row, newest activity first.
func catalog(db *sql.DB) ([]backing.Entry, error) {
	rows, err := db.Query(`SELECT id, name, state, title, agent, project, tags, created, last_activity,
		messages, bytes FROM sessions ORDER BY last_activity DESC, name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []backing.Entry
	at := map[string]int{}
	for rows.Next() {
		var e backing.Entry
		var tags string
		var created, last int64
		if err := rows.Scan(&e.ID, &e.Name, &e.State, &e.Title, &e.Agent, &e.Project, &tags, &created, &last,
			&e.Messages, &e.Bytes); err != nil {
			return nil, err
		}
		json.Unmarshal([]byte(tags), &e.Tags)
		e.Created, e.LastActivity = fromNano(created), fromNano(last)
		e.ByModel = backing.ModelUsage{}
		at[e.ID] = len(out)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	spend, err := db.Query(`SELECT session, model, input, output, cache_read, cache_write, reasoning FROM spend`)
	if err != nil {
		return nil, err
	}
	defer spend.Close()
	for spend.Next() {
		var id, model string
		var u backing.Usage
		if err := spend.Scan(&id, &model, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Reasoning); err != nil {
			return nil, err
		}
		if i, ok := at[id]; ok && !u.IsZero() {
			out[i].ByModel.Add(model, u)
		}
	}
	return out, spend.Err()
}
