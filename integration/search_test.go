package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// searchHit is the part of a `sessfs search --json` line the tests read.
type searchHit struct {
	Session string `json:"session"`
	Turn    int    `json:"turn"`
	Message int    `json:"message"`
	Role    string `json:"role"`
	Snippet string `json:"snippet"`
	Path    string `json:"path"`
}

func searchJSON(t *testing.T, store string, args ...string) []searchHit {
	t.Helper()
	r := cliResult(t, store, "", "search", append([]string{"--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("want success: %v", r)
	}
	var hits []searchHit
	for _, line := range lines(r.stdout) {
		var h searchHit
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("search --json printed %q: %v", line, err)
		}
		hits = append(hits, h)
	}
	return hits
}

// promptsThrough counts the prompts a person typed in a Claude Code
// session file up to the first line holding phrase: the turn that line is
// in, counted here from the agent's own file, apart from sessfs's rule.
func promptsThrough(t *testing.T, file, phrase string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		var l struct {
			Type    string `json:"type"`
			IsMeta  bool   `json:"isMeta"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Type != "user" || l.IsMeta {
			continue
		}
		c := string(l.Message.Content)
		if !strings.Contains(c, `"tool_result"`) && !strings.Contains(c, "Stop hook feedback") {
			n++
		}
		if strings.Contains(line, phrase) {
			return n
		}
	}
	t.Fatalf("%q is not in %s", phrase, file)
	return 0
}

// TestSearchRealSessions: a phrase written once in the real sessions is
// the first hit, at the turn it was typed in, from the command line and
// from the mount, where the hit is a link that cd, ls, cat and find -L
// follow to its turn.
func TestSearchRealSessions(t *testing.T) {
	files := sharedData(t, "claude-code/*.jsonl", "codex/*.jsonl")
	const phrase = "timing decorator myself"
	var source string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if n := strings.Count(string(data), phrase); n > 0 {
			if source != "" || n != 1 {
				t.Fatalf("%q is written more than once in the real sessions", phrase)
			}
			source = f
		}
	}
	if source == "" {
		t.Fatalf("%q is in none of the real sessions", phrase)
	}
	turn := promptsThrough(t, source, phrase)
	store := filepath.Join(t.TempDir(), "store")
	cli(t, store, "import", files...)

	hits := searchJSON(t, store, `"`+phrase+`"`)
	if len(hits) == 0 || hits[0].Turn != turn || hits[0].Role != "user" || !strings.Contains(hits[0].Snippet, "timing decorator") {
		t.Fatalf("search %q: %+v, want first a user message of turn %d", phrase, hits, turn)
	}
	want := hits[0]
	if want.Path != want.Session+fmt.Sprintf("/turns/%d", turn) {
		t.Errorf("path %q, want %s/turns/%d", want.Path, want.Session, turn)
	}
	// Words in any order, and a prefix, find it too.
	if hits := searchJSON(t, store, "myself", "decor*", "timing"); len(hits) == 0 || hits[0].Path != want.Path {
		t.Errorf("search myself decor* timing: %+v, want %s first", hits, want.Path)
	}
	// Nothing found is exit 1, like grep.
	if r := cliResult(t, store, "", "search", "xylophonequartz"); r.code != 1 || r.stdout != "" {
		t.Errorf("search with no hit: %v, want exit 1 and no output", r)
	}

	mnt := mountDir(t)
	startMountProc(t, store, mnt)
	query := filepath.Join(mnt, "search", phrase)
	if got := ls(t, filepath.Join(mnt, "search")); len(got) != 0 {
		t.Errorf("ls search = %q, want nothing", got)
	}
	links := ls(t, query)
	if len(links) == 0 || !strings.HasPrefix(links[0], fmt.Sprintf("01 %s · turn %d", want.Session, turn)) {
		t.Fatalf("ls %q = %q, want first the session's turn %d", query, links, turn)
	}
	first := filepath.Join(query, links[0])
	if target, err := os.Readlink(first); err != nil || target != "../../"+want.Path {
		t.Errorf("readlink %q = %q, %v; want ../../%s", first, target, err, want.Path)
	}
	if md := cat(t, filepath.Join(first, "transcript.md")); !strings.Contains(md, phrase) {
		t.Errorf("the hit's transcript.md does not hold the phrase:\n%s", md)
	}
	if got := sh(t, `cd "$1" && ls`, first); !strings.Contains(got, "transcript.md") {
		t.Errorf("cd into the hit and ls: %q", got)
	}
	found := lines(run(t, "find", "-L", query, "-name", "transcript.md"))
	if len(found) != len(links) {
		t.Errorf("find -L %s -name transcript.md found %d, want one a link (%d): %q", query, len(found), len(links), found)
	}
}

// TestSearchFindsAppendWithinASecond: a message appended through the
// mount is in search/ within a second of its write returning.
func TestSearchFindsAppendWithinASecond(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	mnt := mountDir(t)
	startMountProc(t, store, mnt)
	run(t, "mkdir", filepath.Join(mnt, "s"))
	query := filepath.Join(mnt, "search", "zanzibar")
	if got := ls(t, query); len(got) != 0 {
		t.Fatalf("before the append: %q", got)
	}
	if err := os.WriteFile(filepath.Join(mnt, "s", "append"), []byte(jsonMsg("user", "tell me about zanzibar")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	appended := time.Now()
	for {
		got := ls(t, query)
		if len(got) == 1 && got[0] == "01 s · turn 1" {
			break
		}
		if time.Since(appended) > time.Second {
			t.Fatalf("1 s after the append, ls search/zanzibar = %q", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSearchIndexDeleted: the index deleted under a running mount is
// rebuilt by the next search, which answers in full, and said once in the
// daemon's log.
func TestSearchIndexDeleted(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	mnt := mountDir(t)
	p := startMountProc(t, store, mnt)
	run(t, "mkdir", filepath.Join(mnt, "s"))
	sh(t, `echo "$1" > "$2"`, jsonMsg("user", "first kumquat"), filepath.Join(mnt, "s", "append"))
	if got := ls(t, filepath.Join(mnt, "search", "kumquat")); len(got) != 1 {
		t.Fatalf("before: %q", got)
	}
	if err := os.RemoveAll(filepath.Join(store, "index")); err != nil {
		t.Fatal(err)
	}
	sh(t, `echo "$1" > "$2"`, jsonMsg("user", "second kumquat"), filepath.Join(mnt, "s", "append"))
	got := ls(t, filepath.Join(mnt, "search", "kumquat"))
	if len(got) != 2 {
		t.Errorf("after deleting the index: %q, want turns 1 and 2", got)
	}
	if hits := searchJSON(t, store, "kumquat"); len(hits) != 2 {
		t.Errorf("sessfs search after deleting the index: %+v", hits)
	}
	if n := strings.Count(p.stderr.String(), "search index"); n != 1 {
		t.Errorf("the daemon said %d times that it rebuilt the index, want once:\n%s", n, p.stderr.String())
	}
}

// TestSearchKilledWhileIndexing: sessfs index --rebuild killed with
// SIGKILL at points through its work leaves an index that answers in full
// at the next search.
func TestSearchKilledWhileIndexing(t *testing.T) {
	needCLI(t)
	store := filepath.Join(t.TempDir(), "store")
	st, err := filestore.Open(store, filestore.Options{Sync: filestore.SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	const sessions = 120
	filler := strings.Repeat("words to index, many of them, so that indexing takes a while. ", 16)
	for i := range sessions {
		s, _, err := st.Create(fmt.Sprintf("s%03d", i), backing.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		var msgs [][]byte
		for j := range 100 {
			msgs = append(msgs, []byte(jsonMsg("user", fmt.Sprintf("pomegranate %d %d %s", i, j, filler))))
		}
		if err := s.AppendID("", msgs); err != nil {
			t.Fatal(err)
		}
	}
	for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond, 800 * time.Millisecond} {
		cmd := exec.Command(sessfsBin, "index", "--rebuild", "--store", store)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after) // the point of the kill, not a wait for a condition
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		hits := searchJSON(t, store, "-n", "0", "pomegranate")
		if len(hits) != sessions*100 {
			t.Errorf("killed after %v: search found %d messages, want %d", after, len(hits), sessions*100)
		}
	}
}
