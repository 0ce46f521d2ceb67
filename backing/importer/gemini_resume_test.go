package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// geminiStart is what every Gemini CLI run writes first to the file it
// starts (gemini_resume.go): the metadata line and a $set of the session
// context, no message.
var geminiStart = strings.Join(geminiLines[:2], "\n") + "\n"

// geminiChats is a store and a chats folder to import Gemini CLI files from.
func geminiChats(t *testing.T) (backing.Store, string) {
	t.Helper()
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "chats")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// meta is the meta.json of the session called name.
func meta(t *testing.T, st backing.Store, name string) (backing.Session, backing.Meta) {
	t.Helper()
	s, err := st.Session(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Meta()
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// wantOriginal asserts that session name gives back data byte for byte.
func wantOriginal(t *testing.T, st backing.Store, name, data string) {
	t.Helper()
	s, _ := meta(t, st, name)
	got, _, err := Original(s)
	if err == nil {
		got, err = Verify(s, got)
	}
	if err != nil || string(got) != data {
		t.Errorf("Original of %s: %v\n%s\nwant:\n%s", name, err, got, data)
	}
}

// The file a --resume starts and leaves with no message is kept (its
// original comes back byte for byte) but archived, a child of the session
// of its id: the active sessions are the conversation alone. Imported
// again, nothing changes.
func TestGeminiResumeStartArchived(t *testing.T) {
	st, dir := geminiChats(t)
	whole := strings.Join(geminiLines, "\n") + "\n"
	writeFile(t, filepath.Join(dir, "session-2026-01-02T03-04-s1.jsonl"), whole)
	writeFile(t, filepath.Join(dir, "session-2026-01-02T03-09-s1.jsonl"), geminiStart)

	var got []Result
	if err := New(st, Options{}).Run([]string{dir}, func(r Result) { got = append(got, r) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Err != nil || got[1].Err != nil || got[0].Name != "list-the-files" {
		t.Fatalf("import: %+v", got)
	}
	start := got[1].Name
	checkResumeStart(t, st, "list-the-files", start)
	wantOriginal(t, st, "list-the-files", whole)
	wantOriginal(t, st, start, geminiStart)

	if err := New(st, Options{}).Run([]string{dir}, func(r Result) {
		if r.Err != nil || r.Stored {
			t.Errorf("second import: %+v", r)
		}
	}); err != nil {
		t.Fatal(err)
	}
	checkResumeStart(t, st, "list-the-files", start)
}

// checkResumeStart asserts that start is archived, a child of session,
// the one active session.
func checkResumeStart(t *testing.T, st backing.Store, session, start string) {
	t.Helper()
	if names, _ := st.Names(); !slices.Equal(names, []string{session}) {
		t.Errorf("active sessions %q, want only %s", names, session)
	}
	main, _ := meta(t, st, session)
	if _, m := meta(t, st, start); m.State != backing.StateArchived || m.Parent != main.ID() {
		t.Errorf("the resume's file: state %q parent %q, want archived under %s", m.State, m.Parent, main.ID())
	}
}

// A resume's file imported before the session's own is archived under it
// once that one is imported: whichever comes first.
func TestGeminiResumeStartFirst(t *testing.T) {
	st, dir := geminiChats(t)
	startFile := filepath.Join(dir, "session-2026-01-02T03-09-s1.jsonl")
	writeFile(t, startFile, geminiStart)
	start := runOne(t, st, startFile)
	if start.Err != nil || !start.Stored {
		t.Fatalf("the resume's file: %+v", start)
	}
	// Alone, it is all there is of its session: not hidden.
	if names, _ := st.Names(); !slices.Equal(names, []string{start.Name}) {
		t.Errorf("active sessions %q, want %s", names, start.Name)
	}
	own := filepath.Join(dir, "session-2026-01-02T03-04-s1.jsonl")
	writeFile(t, own, strings.Join(geminiLines, "\n")+"\n")
	if r := runOne(t, st, own); r.Err != nil || r.Name != "list-the-files" {
		t.Fatalf("the session's file: %+v", r)
	}
	checkResumeStart(t, st, "list-the-files", start.Name)
}

// A session's own file imported before its first prompt (mount --source
// sees it as soon as Gemini CLI starts it) holds no message either: with
// no file of its id named before it, it stays active and grows into the
// conversation; a later resume's file is archived under it.
func TestGeminiFreshStartGrows(t *testing.T) {
	st, dir := geminiChats(t)
	own := filepath.Join(dir, "session-2026-01-02T03-04-s1.jsonl")
	writeFile(t, own, geminiStart)
	first := runOne(t, st, own)
	if first.Err != nil || !first.Stored {
		t.Fatalf("first import: %+v", first)
	}
	writeFile(t, own, strings.Join(geminiLines, "\n")+"\n")
	if r := runOne(t, st, own); r.Err != nil || !r.Stored || r.Name != first.Name {
		t.Fatalf("grown import: %+v", r)
	}
	startFile := filepath.Join(dir, "session-2026-01-02T03-09-s1.jsonl")
	writeFile(t, startFile, geminiStart)
	start := runOne(t, st, startFile)
	if start.Err != nil || !start.Stored {
		t.Fatalf("the resume's file: %+v", start)
	}
	checkResumeStart(t, st, first.Name, start.Name)
	if _, m := meta(t, st, first.Name); m.State != backing.StateActive || m.Parent != "" {
		t.Errorf("the session: state %q parent %q, want active, no parent", m.State, m.Parent)
	}
}

// A resume in the same minute as the session's first run writes to the
// session's own file (Gemini CLI names the file it starts for the minute):
// the second metadata line and the restored history are events in the
// middle of it, and the resumed turn is a turn of the one session.
func TestGeminiResumeSameMinute(t *testing.T) {
	resumed := append(slices.Clone(geminiLines[:9]), geminiLines[:2]...)
	resumed = append(resumed,
		`{"$set":{"sessionId":"s-1"}}`,
		geminiLines[9], // the restored history
		`{"id":"u2","timestamp":"2026-01-02T03:05:00.000Z","type":"user","content":[{"text":"And the next?"}]}`,
		`{"id":"g3","timestamp":"2026-01-02T03:05:01.000Z","type":"gemini","content":"Nothing else.","model":"gemini-2.5-pro"}`,
	)
	in := strings.Join(resumed, "\n") + "\n"
	s := mustDecode(t, in, Gemini)
	if s.SourceID != "s-1" || s.Title != "List the files" || s.Extra[noMessagesKey] != nil {
		t.Errorf("session %q title %q extra %s", s.SourceID, s.Title, s.Extra)
	}
	if got := s.EventLine; !equalInts(got, []int{1, 2, 5, 7, 10, 11, 12, 13}) {
		t.Errorf("event lines %v, want 1 2 5 7 10 11 12 13", got)
	}
	prompts := 0
	for _, m := range s.Messages {
		if backing.IsPrompt(m) {
			prompts++
		}
	}
	if len(s.Messages) != 7 || prompts != 2 {
		t.Errorf("%d messages, %d prompts; want 7 and 2", len(s.Messages), prompts)
	}

	st, dir := geminiChats(t)
	path := filepath.Join(dir, "session-2026-01-02T03-04-s1.jsonl")
	writeFile(t, path, in)
	if r := runOne(t, st, path); r.Err != nil || r.Name != "list-the-files" {
		t.Fatalf("import: %+v", r)
	}
	wantOriginal(t, st, "list-the-files", in)
}

// A file of no message says so in what the import records of its source;
// a conversation's does not.
func TestGeminiNoMessagesRecorded(t *testing.T) {
	if s := mustDecode(t, geminiStart, Gemini); string(s.Extra[noMessagesKey]) != "true" || len(s.Messages) != 0 {
		t.Errorf("the start of a run: %d messages, extra %s", len(s.Messages), s.Extra)
	}
	if s := mustDecode(t, strings.Join(geminiLines, "\n")+"\n", Gemini); s.Extra[noMessagesKey] != nil {
		t.Errorf("a conversation: extra %s", s.Extra)
	}
}
