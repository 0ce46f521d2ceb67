package filestore

import "github.com/sessfs/sessfs/backing"

// autoTitle gives an untitled session the title of its first prompt, as
// an import does, so that a session made by mkdir or `sessfs new` is
// listed by what it is about. Only the first prompt of the default branch
// does it, and only while the title is empty: a title the user sets, or
// clears, later stays. The caller holds the session lock and has just
// written lines to branch id. A failure here leaves the title for a later
// append to try; the append itself stands.
func (s *Session) autoTitle(id string, lines [][]byte, kinds []backing.Kind) {
	first, prompts := -1, 0
	for i, k := range kinds {
		if k.Prompt {
			if first < 0 {
				first = i
			}
			prompts++
		}
	}
	if first < 0 || s.titled.Load() {
		return
	}
	// The branch first: the branch list is cached, meta.json is read.
	if b, err := s.BranchByID(id); err != nil || !b.IsDefault() {
		return
	}
	m, err := s.Meta()
	if err != nil {
		return
	}
	if m.Title != "" {
		s.titled.Store(true)
		return
	}
	x := s.logIndex(id)
	x.mu.Lock()
	err = x.refresh()
	before := len(x.marks.Prompts) - prompts
	x.mu.Unlock()
	if err != nil || before != 0 {
		s.titled.Store(err == nil) // an earlier prompt went by: the user cleared the title
		return
	}
	title := backing.TitleOf(backing.PromptText(lines[first]), backing.TitleMax)
	if title == "" {
		return
	}
	if _, err := s.updateMetaLocked(func(m *backing.Meta) error {
		m.Title, m.Updated = title, now()
		return nil
	}); err == nil {
		s.titled.Store(true)
	}
}
