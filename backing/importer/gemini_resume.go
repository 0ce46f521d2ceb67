package importer

import "github.com/sessfs/sessfs/backing"

// What Gemini CLI 0.61 does on `gemini --resume`, seen with the real CLI
// (integration/agents): every run first starts a recording of its own,
// session-<minute>-<id[:8]>.jsonl, named for the minute it starts in and
// already under the resumed session's id, and writes the metadata line and
// a $set of the session context to it. Then the resume switches the
// recording to the resumed session's file: it appends {"$set":{"sessionId"}}
// and a $set restoring the history there, and every line of the new turns
// goes there too. The file the run started is left as it is, with no
// message; Gemini CLI's own session list skips it (it has nothing to
// resume) and lists one session per id. A resume in the same minute as
// the session's first run names the same file, so the metadata line and
// the context's $set land in the middle of the session's own file (events
// there, like any $set).
//
// sessfs keeps the left-behind file, so that export --format original
// gives it back byte for byte, but not among the sessions a user works
// with: its session is archived and linked to the session of its id as a
// child, so ls shows the conversation once, with all its turns.

// noMessagesKey is the key of meta.json's "source" that says the source
// held no message line when it was first imported (Origin.NoMessages, set
// by the Gemini decoder; a later import of more lines does not clear it:
// linkResumeStarts only trusts it of a file named after another of its
// id, which Gemini CLI never writes to again).
const noMessagesKey = "no_messages"

// linkResumeStarts archives every imported Gemini CLI file of no message
// that has a file of the same session id named before it (the session's
// own file: a resume's file is named for a later minute), and links it to
// that file's session as its parent. A file of no message with no such
// file is left alone: a session's own file before its first prompt, which
// grows into the conversation, or the only trace of its session. One
// already linked is left alone too, so one the user unarchived stays so.
func (r *Importer) linkResumeStarts() error {
	first := map[string]sourceKey{} // by session id, the key of its first-named file
	for k := range r.index {
		if k.format != Gemini || k.id == "" || k.subagent != "" {
			continue
		}
		if f, ok := first[k.id]; !ok || k.file < f.file {
			first[k.id] = k
		}
	}
	for k, e := range r.index {
		f, ok := first[k.id]
		if k.format != Gemini || !e.noMessages || e.parent != "" || !ok || f == k {
			continue
		}
		parent, _, err := r.find(f)
		if err != nil {
			return err
		}
		s, m, err := r.find(k)
		if err != nil {
			return err
		}
		if parent == nil || s == nil {
			continue // in the trash (or gone) meanwhile
		}
		// Archive first: the parent, once set, says this one is done.
		if m.State == backing.StateActive {
			if err := r.st.Archive(m.Name); err != nil {
				return err
			}
		}
		if err := s.SetParent(parent.ID()); err != nil {
			return err
		}
		e.parent = parent.ID()
	}
	return nil
}
