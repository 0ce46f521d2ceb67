package filestore

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// checkSealed checks the sealed file of the log f reads (sealed.go)
// whole: its trailer, then every frame decoded against its length and
// CRC, and that it ends at a line's end within the log. It reports
// whether the log can be read on: false when it cannot, reported.
func (c *fsck) checkSealed(s *Session, logPath string, f *logFile) bool {
	zp := sealedPath(logPath)
	if f.zerr == nil && f.z != nil {
		f.zerr = verifySealed(f.z, f.Size())
	}
	if f.zerr == nil {
		return true
	}
	if errors.Is(f.zerr, ErrSymlink) {
		return false // reported by checkEntries
	}
	if !punched(f.f) {
		c.report(s.id, zp, fmt.Sprintf("sealed start of the log cannot be used (%v); the log still holds those bytes: repair moves the sealed file to quarantine", f.zerr), func() error {
			return s.quarantineFile(zp, "damaged")
		})
		return false
	}
	c.report(s.id, zp, fmt.Sprintf("sealed start of the log cannot be used (%v), and the log holds only what follows it: reads of the log fail; a human must mend it (`zstd -dc` of it gives back the frames that can be read)", f.zerr), nil)
	return false
}

// verifySealed decodes every frame of z, the sealed file of a log of
// size bytes.
func verifySealed(z *sealedLog, size int64) error {
	if z.size > size {
		return fmt.Errorf("%w: it holds %d bytes of a log of %d", errSealed, z.size, size)
	}
	for i := range z.frames {
		data, err := z.decode(i)
		if err != nil {
			return err
		}
		if i == len(z.frames)-1 && data[len(data)-1] != '\n' {
			return fmt.Errorf("%w: it ends in the middle of a line", errSealed)
		}
	}
	return nil
}

// punched reports whether the file has a hole before its end: bytes that
// were freed, or never written.
func punched(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err != nil
	}
	hole, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE)
	return err != nil || hole < fi.Size()
}

// checkSealedOrphans finds in logs/ what seals leave beside the logs:
// temporary sealed files of a seal a crash cut short, which the next seal
// of the branch removes, and a sealed file whose log is not beside it,
// left by a crash between the two renames of a move (moveLog).
func (c *fsck) checkSealedOrphans(s *Session) {
	ents, err := readDir(s.path("logs"))
	if err != nil {
		return // reported by checkOrphanLogs
	}
	for _, e := range ents {
		p := s.path("logs", e.Name())
		if !e.Type().IsRegular() {
			continue
		}
		if isTemp(e.Name()) && strings.Contains(e.Name(), ".jsonl"+sealedSuffix+"-") {
			c.note(s.id, p, "temporary sealed file of a seal a crash cut short; readers ignore it; repair removes it (its log holds its bytes)", func() error {
				return remove(p)
			})
			continue
		}
		logName, ok := isSealedName(e.Name())
		if !ok || isTemp(e.Name()) || exists(s.path("logs", logName)) {
			continue
		}
		if t := s.path("trash", logName); exists(t) && !exists(sealedPath(t)) {
			c.report(s.id, p, "sealed start of a log that went to the session's trash without it (a move a crash cut short); repair moves it beside its log", func() error {
				return rename(p, sealedPath(t), 0)
			})
			continue
		}
		c.report(s.id, p, "sealed start of a log that is missing; it holds messages: a human must look at it", nil)
	}
}
