package memstore

import (
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// Options configure a store.
type Options struct {
	// MaxMessage is the largest message an append accepts, in bytes; 0:
	// DefaultMaxMessage.
	MaxMessage int64
	// MaxBytes bounds the bytes of messages the store holds in all; 0:
	// DefaultMaxBytes.
	MaxBytes int64
}

// Defaults of Options.
const (
	DefaultMaxMessage = 64 << 20
	DefaultMaxBytes   = 1 << 30
)

// blockSize is the unit Space counts in.
const blockSize = 4096

// Store is a store in memory. Its methods are safe for concurrent use.
type Store struct {
	opts Options
	feed backing.Subscribers

	mu           sync.Mutex
	sessions     map[string]*session // by id: active, archived and trashed
	names        map[string]string   // active and archived names → id
	namesChanged time.Time
	bytes        int64 // of the messages held
}

var (
	_ backing.Store    = (*Store)(nil)
	_ backing.Receiver = (*Store)(nil)
	_ backing.Remover  = (*Store)(nil)
)

// New makes an empty store.
func New(opts Options) *Store {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	return &Store{opts: opts, sessions: map[string]*session{}, names: map[string]string{}, namesChanged: now()}
}

func now() time.Time { return time.Now().UTC() }

// Location names the store for a message.
func (st *Store) Location() string { return "memory" }

// MaxMessage is the largest message an append accepts.
func (st *Store) MaxMessage() int64 { return st.opts.MaxMessage }

// Space is the room left under Options.MaxBytes.
func (st *Store) Space() (backing.Space, error) {
	st.mu.Lock()
	used := st.bytes
	st.mu.Unlock()
	total := uint64(st.opts.MaxBytes) / blockSize
	free := uint64(max(0, st.opts.MaxBytes-used)) / blockSize
	return backing.Space{BlockSize: blockSize, Blocks: total, BlocksFree: free, BlocksAvail: free}, nil
}

// errNoSpace refuses an append past Options.MaxBytes.
func (st *Store) errNoSpace(n int) error {
	return fmt.Errorf("%w: %d bytes more would pass the %d the ephemeral sessions may hold", syscall.ENOSPC, n, st.opts.MaxBytes)
}

// NamesChanged is when a name last came or went.
func (st *Store) NamesChanged() time.Time {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.namesChanged
}

// Names lists the active sessions' names, sorted.
func (st *Store) Names() ([]string, error) { return st.namesIn(backing.StateActive), nil }

// ArchivedNames lists the archived sessions' names, sorted.
func (st *Store) ArchivedNames() ([]string, error) { return st.namesIn(backing.StateArchived), nil }

func (st *Store) namesIn(state string) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := []string{}
	for name, id := range st.names {
		if st.sessions[id].state() == state {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TrashedIDs lists the ids of the sessions in the trash.
func (st *Store) TrashedIDs() ([]string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := []string{}
	for id, s := range st.sessions {
		if s.state() == backing.StateTrashed {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// List reads every active session's meta and counts, with the archived
// and trashed ones when all is set.
func (st *Store) List(all bool) ([]backing.SessionInfo, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := []backing.SessionInfo{}
	for _, s := range st.sessions {
		m, err := s.decode()
		if !all && m.State != backing.StateActive {
			continue
		}
		v := s.view(s.branches[s.main])
		out = append(out, backing.SessionInfo{Meta: m, Messages: v.Visible(), LastActivity: s.lastAppend(), Err: err})
	}
	slices.SortFunc(out, func(a, b backing.SessionInfo) int { return cmpString(a.Name, b.Name) })
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Session opens an active or archived session by name.
func (st *Store) Session(name string) (backing.Session, error) {
	s, _, err := st.Lookup(name)
	return s, err
}

// Lookup is Session that also says the session's state.
func (st *Store) Lookup(name string) (backing.Session, string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	id, ok := st.names[name]
	if !ok {
		return nil, "", fmt.Errorf("session %q: %w", name, backing.ErrNotFound)
	}
	return &Session{st: st, id: id}, st.sessions[id].state(), nil
}

// SessionByID opens a session by id, in the trash too.
func (st *Store) SessionByID(id string) (backing.Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.sessions[id]; !ok {
		return nil, fmt.Errorf("session id %q: %w", id, backing.ErrNotFound)
	}
	return &Session{st: st, id: id}, nil
}
