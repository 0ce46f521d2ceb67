package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The real sessions of ../shared/data import, each into one session whose
// message count matches the source's message lines, and a second import
// of the same files adds nothing.
func TestImportRealSessions(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "data")
	files, _ := filepath.Glob(filepath.Join(data, "*", "*.jsonl"))
	if len(files) == 0 {
		t.Skip("no real sessions in ../shared/data")
	}
	s := newStore(t)
	names := strings.Fields(s.ok("import", data))
	if len(names) != len(files) {
		t.Fatalf("import printed %d names for %d files: %v", len(names), len(files), names)
	}
	var list []struct {
		Name     string `json:"name"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal([]byte(s.ok("ls", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, l := range list {
		if l.Messages == 0 {
			t.Errorf("%s imported no message", l.Name)
		}
		total += l.Messages
	}
	// Each session shows as Markdown.
	for _, n := range names {
		if md := s.ok("show", n); !strings.HasPrefix(md, "## Turn 1") {
			t.Errorf("show %s starts %q", n, md[:min(40, len(md))])
		}
	}
	r := s.run("import", data)
	if r.code != 0 || r.stdout != "" || strings.Count(r.stderr, "already imported") != len(files) {
		t.Errorf("second import: %v", r)
	}
	var again []struct{ Messages int }
	json.Unmarshal([]byte(s.ok("ls", "--json")), &again)
	sum := 0
	for _, l := range again {
		sum += l.Messages
	}
	if len(again) != len(list) || sum != total {
		t.Errorf("second import changed the store: %d sessions %d messages, was %d and %d", len(again), sum, len(list), total)
	}
}

func TestImportRefusesJunk(t *testing.T) {
	s := newStore(t)
	junk := filepath.Join(t.TempDir(), "junk.jsonl")
	os.WriteFile(junk, []byte("not json at all\n"), 0o600)
	s.fails(1, "junk.jsonl", "", "import", junk)
	s.fails(2, "--format", "", "import", "--format", "nope", junk)
}
