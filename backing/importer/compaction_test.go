package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// importCompactions imports a source file of lines into st and returns the
// compactions of its session's default branch, with the session.
func importCompactions(t *testing.T, st backing.Store, name, data string) (backing.Session, []backing.Compaction) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	s, v := importedView(t, st, path)
	cs, err := backing.Compactions(v)
	if err != nil {
		t.Fatal(err)
	}
	return s, cs
}

// importedView imports the source file at path into st and returns its
// session and the session's default branch.
func importedView(t *testing.T, st backing.Store, path string) (backing.Session, backing.View) {
	t.Helper()
	r := runOne(t, st, path)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	s, err := st.Session(r.Name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	return s, v
}

const claudeCompacted = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"Fix the parser"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Fixed."}]}}
{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","uuid":"b1","parentUuid":null,"logicalParentUuid":"a1","sessionId":"s1","timestamp":"2026-01-01T01:00:00Z","compactMetadata":{"trigger":"manual","preTokens":12345}}
{"type":"user","uuid":"c1","parentUuid":"b1","isCompactSummary":true,"isVisibleInTranscriptOnly":true,"sessionId":"s1","timestamp":"2026-01-01T01:00:01Z","message":{"role":"user","content":"This session is being continued from a previous conversation. Summary: the parser was fixed."}}
{"type":"user","uuid":"u2","parentUuid":"c1","sessionId":"s1","timestamp":"2026-01-01T01:01:00Z","message":{"role":"user","content":"Now the lexer"}}
{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","timestamp":"2026-01-01T01:01:05Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Lexer fixed."}]}}
`

// Claude Code's compact boundary and the summary after it, imported, are
// one compaction at the boundary, after the history it stands for (kept,
// in the same branch), with the summary's text and the boundary's time.
// Compacted again in sessfs, the new branch starts with its own and keeps
// the imported one in the turn it kept, and it is written back for Claude
// Code as one chain with the summary marked as Claude Code marks its own.
func TestImportedClaudeCompaction(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, cs := importCompactions(t, st, "s1.jsonl", claudeCompacted)
	if len(cs) != 1 {
		t.Fatalf("Compactions = %+v, want the one", cs)
	}
	c := cs[0]
	if c.Kind != backing.CompactionImported || c.Marker != "compact_boundary" || c.Index != 2 || c.Visible != 2 || c.Turn != 2 || c.BoundaryTurn != 1 ||
		c.Summary != "This session is being continued from a previous conversation. Summary: the parser was fixed." ||
		!c.Time.Equal(time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("the imported compaction: %+v", c)
	}

	compacted, err := backing.Compact(s, "", backing.CompactOptions{At: 1, Summary: "The parser is fixed."})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewID(compacted.Branch.ID)
	if err != nil {
		t.Fatal(err)
	}
	cs, err = backing.Compactions(v)
	if err != nil || len(cs) != 2 || cs[0].Kind != backing.CompactionSessfs || cs[1].Kind != backing.CompactionImported || cs[1].Index != 2 {
		t.Fatalf("the compacted branch's compactions: %+v, %v", cs, err)
	}
	var b bytes.Buffer
	n, err := WriteNative(&b, ClaudeCode, s, compacted.Branch.ID, NativeOptions{Now: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	checkClaudeChain(t, b.Bytes(), n.ID)
	back, err := Decode(bytes.NewReader(b.Bytes()), ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	if got := conversation(t, back.Messages); len(got) != 2 || got[0].text != "Now the lexer" || got[1].text != "Lexer fixed." {
		t.Errorf("the written conversation: %q", got)
	}
	first := bytes.SplitN(b.Bytes(), []byte("\n"), 2)[0]
	if !bytes.Contains(first, []byte(`"isCompactSummary":true`)) || !bytes.Contains(first, []byte("The parser is fixed.")) {
		t.Errorf("the first line written is not the summary, marked: %s", first)
	}
}

// Codex's compacted line, imported, is a compaction with its message as
// the summary, at its place in the history.
func TestImportedCodexCompaction(t *testing.T) {
	st, err := filestore.Open(t.TempDir(), filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, cs := importCompactions(t, st, "rollout-2026-01-01T00-00-00-c1.jsonl", lines(
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","model_provider":"openai"}}`,
		codexUser("first prompt"),
		codexTyped,
		codexReply,
		`{"timestamp":"2026-01-01T00:30:00Z","type":"compacted","payload":{"message":"The user asked once.","replacement_history":[]}}`,
		codexUser("second prompt"),
		codexTyped,
		codexReply,
	))
	if len(cs) != 1 {
		t.Fatalf("Compactions = %+v, want the one", cs)
	}
	c := cs[0]
	if c.Kind != backing.CompactionImported || c.Marker != "compacted" || c.Summary != "The user asked once." || c.Index != 4 || c.Visible != 2 || c.Turn != 2 || c.BoundaryTurn != 1 ||
		!c.Time.Equal(time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)) {
		t.Errorf("the imported compaction: %+v", c)
	}
}
