package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// browseFixture is a mount with two sessions: alpha, made through the
// store, and beta, made with the CLI (a second process writing the store).
func browseFixture(t *testing.T) *mount {
	t.Helper()
	m := newMount(t)
	newSession(t, m.Store, "alpha", "Capitals", conversation...)
	cli(t, m.StoreDir, "new", "--title", "Made by the CLI", "beta")
	cli(t, m.StoreDir, "append", "beta", "A question typed on the command line")
	cli(t, m.StoreDir, "append", "--role", "assistant", "beta", "An answer, also from the CLI")
	return m
}

// ls MOUNT shows every session and the two views, and a session folder
// shows exactly the files of the contract.
func TestBrowseListing(t *testing.T) {
	m := browseFixture(t)
	got := ls(t, m.Dir)
	want := rootOf("alpha", "beta")
	if !slices.Equal(got, want) {
		t.Errorf("ls MOUNT = %q, want %q", got, want)
	}

	// ls -l: names and types (d or -) of a session folder's entries.
	want = []string{"append -", "branches d", "branches.txt -", "checkpoints d", "compaction.json -", "events.jsonl -", "export.json -", "memory.json -", "messages.jsonl -", "meta.json -", "tasks.json -", "transcript.html -", "transcript.md -", "transcript.redacted.md -", "turns d", "usage.json -"}
	var entries []string
	for _, l := range lines(run(t, "ls", "-l", m.P("alpha"))) {
		f := strings.Fields(l)
		if len(f) < 9 || f[0] == "total" {
			continue
		}
		entries = append(entries, f[len(f)-1]+" "+f[0][:1])
	}
	slices.Sort(entries)
	if !slices.Equal(entries, want) {
		t.Errorf("ls -l MOUNT/alpha entries = %q, want %q", entries, want)
	}

	if got := ls(t, m.P("alpha", "branches")); !slices.Equal(got, []string{"main"}) {
		t.Errorf("ls branches = %q, want [main]", got)
	}
	want = []string{"append", "checkpoints", "compaction.json", "events.jsonl", "export.json", "info.json", "memory.json", "messages.jsonl", "since-fork.jsonl", "tasks.json", "transcript.html", "transcript.md", "transcript.redacted.md", "turns", "usage.json"}
	if got := ls(t, m.P("alpha", "branches", "main")); !slices.Equal(got, want) {
		t.Errorf("ls branches/main = %q, want %q", got, want)
	}
	if got := ls(t, m.P("alpha", "turns")); !slices.Equal(got, []string{"1", "2"}) {
		t.Errorf("ls turns = %q, want [1 2] (two user questions)", got)
	}
	want = []string{"files", "files.json", "fork", "info.json", "messages.jsonl", "transcript.md", "usage.json"}
	if got := ls(t, m.P("alpha", "turns", "2")); !slices.Equal(got, want) {
		t.Errorf("ls turns/2 = %q, want %q", got, want)
	}
}

// transcript.md and messages.jsonl are exactly what `sessfs show` prints,
// at the top of the session and under branches/main; turns/<n>/ holds the
// turn's part.
func TestBrowseMatchesShow(t *testing.T) {
	m := browseFixture(t)
	for _, s := range []string{"alpha", "beta"} {
		md := cli(t, m.StoreDir, "show", "--format", "md", s)
		jsonl := cli(t, m.StoreDir, "show", "--format", "jsonl", s)
		if md == "" || jsonl == "" {
			t.Fatalf("sessfs show %s printed nothing", s)
		}
		for _, dir := range []string{m.P(s), m.P(s, "branches", "main")} {
			if got := cat(t, filepath.Join(dir, "transcript.md")); got != md {
				t.Errorf("cat %s/transcript.md differs from sessfs show --format md:\n got %q\nwant %q", dir, trunc(got), trunc(md))
			}
			if got := cat(t, filepath.Join(dir, "messages.jsonl")); got != jsonl {
				t.Errorf("cat %s/messages.jsonl differs from sessfs show --format jsonl:\n got %q\nwant %q", dir, trunc(got), trunc(jsonl))
			}
		}
	}
	for turn := 1; turn <= 2; turn++ {
		n := strconv.Itoa(turn)
		md := cli(t, m.StoreDir, "show", "--format", "md", "--turn", n, "alpha")
		if got := cat(t, m.P("alpha", "turns", n, "transcript.md")); got != md {
			t.Errorf("turns/%d/transcript.md differs from sessfs show --turn %d:\n got %q\nwant %q", turn, turn, got, md)
		}
		jsonl := cli(t, m.StoreDir, "show", "--format", "jsonl", "--turn", n, "alpha")
		if got := cat(t, m.P("alpha", "turns", n, "messages.jsonl")); got != jsonl {
			t.Errorf("turns/%d/messages.jsonl differs from sessfs show --turn %d:\n got %q\nwant %q", turn, turn, got, jsonl)
		}
	}
	// meta.json is the session's document.
	var meta map[string]any
	if err := json.Unmarshal([]byte(cat(t, m.P("beta", "meta.json"))), &meta); err != nil {
		t.Fatalf("meta.json is not JSON: %v", err)
	}
	if meta["name"] != "beta" || meta["title"] != "Made by the CLI" {
		t.Errorf("meta.json of beta: name %v title %v", meta["name"], meta["title"])
	}
}

// Every file reports its exact size: for each regular file, wc -c (which
// on a regular file seeks to near the end and reads the rest), cat | wc -c
// (which reads it all) and stat -c %s agree.
func TestBrowseSizesExact(t *testing.T) {
	m := browseFixture(t)
	// An archived session, a trashed one and a fork, so that find walks
	// every kind of folder.
	newSession(t, m.Store, "gamma", "", conversation[:2]...)
	if err := m.Store.Archive("gamma"); err != nil {
		t.Fatal(err)
	}
	newSession(t, m.Store, "delta", "", conversation[2:]...)
	if err := m.Store.Trash("delta"); err != nil {
		t.Fatal(err)
	}
	run(t, "mkdir", m.P("alpha", "branches", "fork1"))

	files := lines(run(t, "find", m.Dir, "-type", "f"))
	if len(files) < 30 {
		t.Fatalf("find -type f found only %d files: %q", len(files), files)
	}
	out := sh(t, `for f in "$@"; do printf '%s %s %s %s\n' "$(wc -c < "$f")" "$(cat "$f" | wc -c)" "$(stat -c %s "$f")" "$f"; done`, files...)
	checked := 0
	for _, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) != 4 {
			t.Fatalf("bad line %q", l)
		}
		if f[0] != f[2] || f[1] != f[2] {
			t.Errorf("%s: wc -c %s, cat|wc -c %s, stat -c %%s %s: want all equal", f[3], f[0], f[1], f[2])
		}
		checked++
	}
	if checked != len(files) {
		t.Errorf("checked %d of %d files", checked, len(files))
	}
	for _, want := range []string{
		m.P("alpha", "transcript.md"), m.P("archive", "gamma", "messages.jsonl"),
		m.P("alpha", "branches", "fork1", "info.json"), m.P("alpha", "turns", "2", "transcript.md"),
		m.P("alpha", "branches", "fork1", "since-fork.jsonl"), m.P("alpha", "branches.txt"),
	} {
		if !contains(files, want) {
			t.Errorf("find -type f does not list %s", want)
		}
	}
}

// grep -r finds a word of a message, find lists the turn folders, and
// tail -c reads the end of a transcript exactly.
func TestBrowseGrepFindTail(t *testing.T) {
	m := browseFixture(t)

	r := runCmd(t, "", "grep", "-r", "xylophone", m.Dir)
	if r.code != 0 {
		t.Fatalf("grep -r xylophone MOUNT: %v", r)
	}
	hits := lines(r.stdout)
	for _, want := range []string{
		m.P("alpha", "transcript.md"), m.P("alpha", "messages.jsonl"),
		m.P("alpha", "branches", "main", "transcript.md"), m.P("alpha", "turns", "1", "transcript.md"),
	} {
		found := false
		for _, h := range hits {
			found = found || strings.HasPrefix(h, want+":")
		}
		if !found {
			t.Errorf("grep -r xylophone: no hit in %s; hits: %q", want, hits)
		}
	}
	if r := runCmd(t, "", "grep", "-rl", "no-such-word-anywhere-42", m.Dir); r.code != 1 {
		t.Errorf("grep for a missing word: want exit 1 (no match), got %v", r)
	}

	all := lines(run(t, "find", m.Dir))
	for _, want := range []string{
		m.P("alpha", "turns", "1"), m.P("alpha", "turns", "2"), m.P("alpha", "turns", "2", "fork"),
		m.P("alpha", "branches", "main", "turns", "1"), m.P("beta", "turns", "1"),
	} {
		if !contains(all, want) {
			t.Errorf("find MOUNT does not list %s", want)
		}
	}
	if contains(all, m.P("alpha", "turns", "3")) {
		t.Errorf("find lists turns/3 of a two-turn session")
	}

	path := m.P("alpha", "transcript.md")
	full := cat(t, path)
	if len(full) <= 100 {
		t.Fatalf("transcript too short for the test: %d bytes", len(full))
	}
	if got := run(t, "tail", "-c", "100", path); got != full[len(full)-100:] {
		t.Errorf("tail -c 100 = %q, want the last 100 bytes of cat: %q", got, full[len(full)-100:])
	}
	if got := run(t, "head", "-c", "50", path); got != full[:50] {
		t.Errorf("head -c 50 = %q, want %q", got, full[:50])
	}
}

// Timestamps are real: nothing in the mount has an mtime of 1970.
func TestBrowseTimes(t *testing.T) {
	m := browseFixture(t)
	run(t, "mkdir", m.P("alpha", "branches", "side"))
	run(t, "mkdir", m.P("empty")) // a session with no message yet
	out := run(t, "find", m.Dir, "-exec", "stat", "-c", "%Y %n", "{}", "+")
	n := 0
	for _, l := range lines(out) {
		secs, name, _ := strings.Cut(l, " ")
		v, err := strconv.ParseInt(secs, 10, 64)
		if err != nil {
			t.Fatalf("stat line %q", l)
		}
		if v < 1e9 {
			t.Errorf("%s: mtime %d (%s), want a real time", name, v, "1970")
		}
		n++
	}
	if n < 40 {
		t.Errorf("stat saw only %d paths", n)
	}
}

// Real sessions written by Claude Code, converted to messages and stored:
// their transcripts read through the mount in full, with exact sizes.
func TestRealSessions(t *testing.T) {
	files := sharedData(t, "claude-code/*.jsonl")
	m := newMount(t)
	type want struct {
		name, firstUser string
		n               int
	}
	var sessions []want
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		msgs, first := claudeMessages(t, f)
		if len(msgs) == 0 {
			continue
		}
		newSession(t, m.Store, name, "", msgs...)
		sessions = append(sessions, want{name, first, len(msgs)})
	}
	if len(sessions) == 0 {
		t.Fatal("no message in any real session")
	}
	for _, s := range sessions {
		path := m.P(s.name, "transcript.md")
		md := cat(t, path)
		if s.firstUser != "" && !strings.Contains(md, strings.TrimSpace(s.firstUser)) {
			t.Errorf("%s: transcript.md lacks the first user text %q", s.name, s.firstUser)
		}
		if got := int64(len(md)); got != statSize(t, path) {
			t.Errorf("%s: cat gave %d bytes, stat says %d", s.name, got, statSize(t, path))
		}
		wc := strings.TrimSpace(run(t, "wc", "-c", path))
		if !strings.HasPrefix(wc, strconv.Itoa(len(md))+" ") {
			t.Errorf("%s: wc -c = %q, want %d", s.name, wc, len(md))
		}
		if got := len(messagesOf(t, m.P(s.name))); got != s.n {
			t.Errorf("%s: messages.jsonl has %d lines, want %d", s.name, got, s.n)
		}
		if md != cli(t, m.StoreDir, "show", s.name) {
			t.Errorf("%s: transcript.md differs from sessfs show", s.name)
		}
	}
}

// claudeMessages converts a Claude Code log: every line whose `message`
// is an object with a string role and a content becomes {role, content}.
// It also returns the first user message's content when it is a string.
func claudeMessages(t *testing.T, path string) (msgs []string, firstUser string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	seenUser := false
	for sc.Scan() {
		var line struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || len(line.Message) == 0 {
			continue
		}
		var m struct {
			Role    *string         `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(line.Message, &m) != nil || m.Role == nil || len(m.Content) == 0 || string(m.Content) == "null" {
			continue
		}
		b, err := json.Marshal(map[string]any{"role": *m.Role, "content": m.Content})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, string(b))
		if *m.Role == "user" && !seenUser {
			seenUser = true
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				firstUser = s
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return msgs, firstUser
}
