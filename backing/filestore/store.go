package filestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sessfs/sessfs/backing"
)

// FormatVersion is the store format this code reads and writes. A later
// format bumps it and migrates; an older sessfs refuses a newer store
// rather than damage it. Format 2: an imported line's content is stored
// once (importer.Slim), which a sessfs of format 1 would give back
// without it. Format 3: logs may be sealed (seal.go), which a sessfs of
// format 2 would read as zeros; a store says 3 from its first seal on,
// and one of format 2 is read as it is, with no migration.
const FormatVersion = formatSealed

const formatPrefix = "sessfs store format "

// SyncMode says when appended messages reach the disk.
type SyncMode int

const (
	// SyncFull fsyncs every append before it returns (the default).
	SyncFull SyncMode = iota
	// SyncNone leaves flushing to the kernel: faster, and a crash of the
	// machine (not of the process) may lose the last appends.
	SyncNone
)

// DefaultMaxMessage is the largest message an append accepts, in bytes.
const DefaultMaxMessage = 64 << 20

// Options tune a Store; the zero value is the safe default.
type Options struct {
	Sync       SyncMode
	MaxMessage int64 // 0 means DefaultMaxMessage
	// Indexing keeps the search index up to date in the background, within
	// a second of each change this process makes, and builds it at once if
	// it is missing (a mount). Without it the index is caught up when it
	// is used.
	Indexing bool
	// Logf reports what a user should hear of and no call returns (the
	// search index rebuilt); nil is the standard logger.
	Logf func(format string, args ...any)
	// Building, when set, is called as sessions are done by a build of
	// the search index that a call made on its own: the first use of a
	// store, or an index found missing or damaged. A build can take
	// minutes on a big store; a command shows this on a terminal.
	Building func(done, total int)
	// Seal says when the start of a long log is compressed (seal.go;
	// the zero value never);
	// SealMin and SealKeep say how many bytes a seal takes at least and
	// how many at a log's end stay plain (0: DefaultSealMin and
	// DefaultSealKeep in the background, AfterAppendSealMin and none
	// after an append).
	Seal              SealMode
	SealMin, SealKeep int64
}

// Store is an open store root. It is safe for concurrent use, and several
// processes may open the same root at once.
type Store struct {
	root string
	opts Options

	mu       sync.Mutex
	sessions map[string]*Session // by id: one handle per session per process, some (handles.go)
	tick     uint64              // counts calls of handle, to tell the least recently used
	ns       *fileLock

	dirs *heldDirs // the folders of names, held open (held_dirs.go)
	feed feed      // the change feed's subscribers (feed.go)
	idx  index     // the search index (index.go)

	bg           sync.WaitGroup // seals under way in the background
	punch        atomic.Int32   // canPunch's answer: 0 not asked, 1 yes, 2 no
	sealedFormat atomic.Bool    // FORMAT says formatSealed
}

// DefaultRoot is where the store lives when no --store flag is given:
// $SESSFS_STORE, else $XDG_DATA_HOME/sessfs, else ~/.local/share/sessfs.
func DefaultRoot() (string, error) {
	if d := os.Getenv("SESSFS_STORE"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "sessfs"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no store given and no home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "sessfs"), nil
}

// Open opens the store at root, creating it if it does not exist. It reads
// nothing but the format file and the kind of the root's few entries (a
// link among them refuses the store), so it costs the same for any store
// size.
func Open(root string, opts Options) (*Store, error) {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	s := &Store{root: abs, opts: opts, sessions: map[string]*Session{}}
	s.dirs = newHeldDirs(s)
	s.hookFeed()
	if err := s.init(); err != nil {
		return nil, err
	}
	s.idx.st, s.idx.background = s, opts.Indexing
	if opts.Indexing {
		s.idx.kick()
	}
	return s, nil
}

// Root is the store's absolute path, with the links on the way to it
// resolved.
func (s *Store) Root() string { return s.root }

// Options returns the options the store was opened with.
func (s *Store) Options() Options { return s.opts }

func (s *Store) init() error {
	if err := os.MkdirAll(s.root, dirMode); err != nil {
		return fmt.Errorf("create store: %w", err)
	}
	// The root may be reached through links of the user's (a store moved
	// to another disk); inside it, none is followed (see nofollow.go).
	real, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		return fmt.Errorf("store %s: %w", s.root, err)
	}
	s.root = real
	for _, name := range topEntries {
		if fi, err := os.Lstat(s.path(name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("store %s: %w", s.root, linkError(s.path(name)))
		}
	}
	v, err := readFormat(s.path("FORMAT"))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := s.create(); err != nil {
			return fmt.Errorf("create store %s: %w", s.root, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("store %s: %w", s.root, err)
	case v > FormatVersion:
		return fmt.Errorf("%w: store %s has format %d, this sessfs reads up to %d; upgrade sessfs",
			backing.ErrFormat, s.root, v, FormatVersion)
	case exists(s.path(migrateDir)):
		back := "its earlier format"
		if from, err := migratedFrom(s.root); err == nil {
			back = "format " + strconv.Itoa(from)
		}
		return fmt.Errorf("%w: the migration of store %s was cut short: run `sessfs migrate --store %s` to finish it (or add --abort to go back to %s)",
			backing.ErrFormat, s.root, s.root, back)
	case v < plainFormat && v >= 1:
		return fmt.Errorf("%w: store %s has format 1, this sessfs uses format %d: run `sessfs migrate --store %s` to upgrade it (it keeps the old data until it finishes)",
			backing.ErrFormat, s.root, FormatVersion, s.root)
	case v < 1:
		return fmt.Errorf("%w: store %s has format %d", backing.ErrFormat, s.root, v)
	}
	return nil
}

func (s *Store) create() error {
	// A folder holding anything but a store being created by another
	// process right now is someone else's: never take it over.
	ents, err := os.ReadDir(s.root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !storeDirs[e.Name()] {
			return fmt.Errorf("%w: folder is not empty and has no FORMAT file", backing.ErrFormat)
		}
	}
	// Sessions hold secrets: the store is its owner's alone.
	if err := os.Chmod(s.root, dirMode); err != nil {
		return err
	}
	for d := range storeDirs {
		if err := mkdir(s.path(d), dirMode); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	}
	// A new store says the format an older sessfs reads until a log of
	// it is sealed.
	err = createExclusive(s.path("FORMAT"), formatLine(plainFormat))
	if errors.Is(err, os.ErrExist) { // another process created it first
		return nil
	}
	return err
}

var storeDirs = map[string]bool{"sessions": true, "names": true, "archive": true, "trash": true}

// topEntries are the entries of a store's root that sessfs reads or
// writes; a link in their place refuses the whole store at Open.
var topEntries = []string{"FORMAT", "lock", "config.json", "sessions", "names", "archive", "trash", "index", migrateDir}

// formatLine is the FORMAT file of format v.
func formatLine(v int) []byte { return []byte(formatPrefix + strconv.Itoa(v) + "\n") }

func readFormat(path string) (int, error) {
	b, err := readFile(path)
	if err != nil {
		return 0, err
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, formatPrefix) {
		return 0, fmt.Errorf("%w: FORMAT file says %q", backing.ErrFormat, line)
	}
	v, err := strconv.Atoi(strings.TrimPrefix(line, formatPrefix))
	if err != nil {
		return 0, fmt.Errorf("%w: FORMAT file says %q", backing.ErrFormat, line)
	}
	return v, nil
}

func (s *Store) path(elem ...string) string {
	return filepath.Join(append([]string{s.root}, elem...)...)
}

func (s *Store) sessionDir(id string) string { return s.path("sessions", id) }

// The file engine implements the contract whole, and fsck and sweep.
var (
	_ backing.Store   = (*Store)(nil)
	_ backing.Session = (*Session)(nil)
	_ backing.View    = (*View)(nil)
	_ backing.Checker = (*Store)(nil)
	_ backing.Sweeper = (*Store)(nil)
)

// MaxMessage is the largest message an append accepts, in bytes.
func (s *Store) MaxMessage() int64 { return s.opts.MaxMessage }
