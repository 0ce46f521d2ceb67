package filestore

import (
	"errors"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sessfs/sessfs/backing"
)

// Names lists the names of active sessions, sorted, reading nothing but
// the names folder: what a directory listing of the mount needs.
func (st *Store) Names() ([]string, error) { return st.readNames("names") }

// ArchivedNames lists the names of archived sessions, sorted.
func (st *Store) ArchivedNames() ([]string, error) { return st.readNames("archive") }

// TrashedIDs lists the ids of the sessions in the trash.
func (st *Store) TrashedIDs() ([]string, error) { return st.readNames("trash") }

func (st *Store) readNames(dir string) ([]string, error) {
	ents, err := readDir(st.path(dir))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !isTemp(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// List describes sessions: the active ones, or with all also the archived
// and trashed ones. Sorted by last activity, oldest first, like ls -tr.
func (st *Store) List(all bool) ([]backing.SessionInfo, error) {
	dirs := []string{"names"}
	if all {
		dirs = append(dirs, "archive", "trash")
	}
	var out []backing.SessionInfo
	for _, d := range dirs {
		ents, err := readDir(st.path(d))
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			id, err := st.readNameLink(d, e.Name())
			if err != nil {
				out = append(out, backing.SessionInfo{Meta: backing.Meta{Name: e.Name()}, Err: err})
				continue
			}
			info := st.handle(id).Info()
			if d != "trash" {
				info.Name = e.Name() // the link is the truth for names
			}
			out = append(out, info)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].LastActivity.Equal(out[j].LastActivity) {
			return out[i].LastActivity.Before(out[j].LastActivity)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Info reads a session's listing row.
func (s *Session) Info() backing.SessionInfo {
	m, err := s.Meta()
	info := backing.SessionInfo{Meta: m, Err: err}
	if m.ID == "" {
		info.ID = s.id
	}
	if err != nil {
		return info
	}
	info.LastActivity = m.Created
	if t, err := s.LastAppend(); err == nil && t.After(info.LastActivity) {
		info.LastActivity = t
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		info.Err = err
	}
	if v, err := s.ViewID(""); err == nil {
		info.Messages = v.Len() - v.Events()
	} else {
		info.Err = err
	}
	return info
}

// LastAppend is the newest modification time of the session's logs.
func (s *Session) LastAppend() (time.Time, error) {
	var t time.Time
	// A sealed file (seal.go) is written when a seal runs, not an append.
	appended := func(name string) bool { return strings.HasSuffix(name, ".jsonl") && !isTemp(name) }
	err := statEntries(s.path("logs"), appended, func(name string, st *unix.Stat_t) {
		if m := time.Unix(st.Mtim.Unix()); m.After(t) {
			t = m
		}
	})
	return t, err
}
