package importer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
	"github.com/sessfs/sessfs/integration/realdata"
)

// completeLinesRule is what an import took of a source when it read it
// whole: all of it if it is one JSON document, else all but a last line
// (no newline after it) that is neither blank nor JSON.
func completeLinesRule(data []byte) []byte {
	if validJSON(data) {
		return data
	}
	nl := bytes.LastIndexByte(data, '\n')
	if last := bytes.TrimSpace(data[nl+1:]); len(last) > 0 && !validJSON(last) {
		return data[:nl+1]
	}
	return data
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// readSource, reading in pieces of any size, finds the complete lines
// and hashes an import that read the file whole found: a last line cut
// short is left out, one that is whole (or blank) is not, a document over
// several lines is taken whole; and the hash of any prefix of them.
func TestReadSourceAsWhole(t *testing.T) {
	defer func(n int) { readPiece = n }(readPiece)
	l1, l2 := claudeLine("u1", "", "user", "hi"), claudeLine("a1", "u1", "assistant", "hello there")
	cases := []string{
		"",
		l1 + "\n",
		l1 + "\n" + l2 + "\n",
		l1 + "\n" + l2,             // the last line whole, no newline
		l1 + "\n" + l2[:20],        // the last line cut short
		l1 + "\n" + l2 + "\n  \t ", // a blank end
		l1[:30],                    // the only line, cut short
		"\n\n" + l1[:30],
		"{\n  \"sessionId\": \"x\",\n  \"messages\": []\n}",  // a document, no newline
		"{\n  \"sessionId\": \"x\",\n  \"messages\": [\n  {", // one cut short
	}
	dir := t.TempDir()
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(path, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		want := completeLinesRule([]byte(c))
		for _, piece := range []int{1, 3, 7, 64, 256 << 10} {
			readPiece = piece
			for _, prefix := range []int{-1, 0, 5, len(want) / 2, len(want), len(c)} {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				sf, err := readSource(f, int64(prefix))
				if err != nil {
					t.Fatal(err)
				}
				if sf.size != int64(len(want)) || sf.sum != hexSum(want) {
					t.Errorf("case %d, pieces of %d: %d bytes, want %d (%q)", i, piece, sf.size, len(want), want)
				}
				if prefix >= 0 && prefix <= len(want) {
					if sf.prefix != int64(prefix) {
						t.Errorf("case %d, pieces of %d: no hash of the first %d bytes", i, piece, prefix)
					}
					if got, _ := sf.sumOf(int64(prefix)); got != hexSum(want[:prefix]) {
						t.Errorf("case %d, pieces of %d: wrong hash of the first %d bytes", i, piece, prefix)
					}
				}
				f.Close()
			}
		}
	}
}

// storeMade is an id the store made (a UUIDv7), quoted.
var storeMade = regexp.MustCompile(`^"[0-9a-f]{8}-[0-9a-f]{4}-7`)

// branchDump is every branch of s, by name: where it forks and its own
// messages as the import made them, less what the store chose (ids it
// made, the time of an append).
func branchDump(t *testing.T, s backing.Session) map[string][]string {
	t.Helper()
	bs, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, b := range bs {
		v, err := s.ViewID(b.ID)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := v.Read(v.Inherited(), v.Len())
		if err != nil {
			t.Fatal(err)
		}
		dump := []string{fmt.Sprintf("forks at %d", v.Inherited())}
		for _, m := range msgs {
			var f map[string]json.RawMessage
			if err := json.Unmarshal(m.Raw, &f); err != nil {
				t.Fatal(err)
			}
			if storeMade.Match(f["id"]) {
				delete(f, "id")
			}
			if f["event"] != nil {
				delete(f, "ts") // the append's, for a line without one
			}
			raw, _ := json.Marshal(f)
			dump = append(dump, string(raw))
		}
		out[b.Name] = dump
	}
	return out
}

// rewindSession is a Claude Code session with what makes its lines go to
// branches other than the one they follow: rewinds (one reaching back past
// a fork), a subagent's lines, a uuid written twice.
func rewindSession() []string {
	side := func(uuid, parent, typ, content string) string {
		return strings.Replace(claudeLine(uuid, parent, typ, content), `"type":`, `"isSidechain":true,"type":`, 1)
	}
	return []string{
		claudeLine("u1", "", "user", "first question"),
		claudeLine("a1", "u1", "assistant", "answer"),
		claudeLine("u2", "a1", "user", "follow-up X"),
		side("s1", "", "user", "subagent task"),
		side("s2", "s1", "assistant", "subagent finding"),
		claudeLine("a2", "u2", "assistant", "reply X"),
		claudeLine("u3", "a1", "user", "follow-up Y"), // rewind to a1
		claudeLine("a3", "u3", "assistant", "reply Y"),
		claudeLine("a3", "u3", "assistant", "reply Y again"),
		claudeLine("u4", "a3", "user", "more on Y"),
		claudeLine("a4", "u4", "assistant", "more Y"),
		claudeLine("u5", "a3", "user", "other on Y"), // rewind to a3
		claudeLine("a5", "u5", "assistant", "other Y"),
		claudeLine("u6", "a2", "user", "back to X"), // rewind into the first fork
		claudeLine("a6", "u6", "assistant", "X again"),
		claudeLine("u7", "u1", "user", "from the top"), // rewind to the start
		claudeLine("a7", "u7", "assistant", "top"),
	}
}

// An import that reads its source in pieces, stores its lines as it
// decodes them again (nothing kept) and appends a few at a time, stores
// exactly what decoding the whole source and storing its branches did,
// from scratch and as the source grows a line at a time (rewinds reaching
// back past what an earlier import stored): the same branches, the same
// messages in each, the same original.
func TestStreamedImportAsWhole(t *testing.T) {
	defer func(k, a int) { keepBudget, appendChunk = k, a }(keepBudget, appendChunk)
	type source struct {
		name   string
		format Format
		lines  []string
	}
	sources := []source{{"rewinds.jsonl", ClaudeCode, rewindSession()}, {"codex.jsonl", Codex, []string{
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/w","timestamp":"2026-01-01T00:00:00Z"}}`,
		codexUser("<environment_context>x</environment_context>"), codexUser("untold"), codexUser("fix it"),
		codexTyped, codexReply, codexUser("and this"), codexDev, codexUser("pending at the end"),
	}}}
	if realdata.Shared() != "" {
		for _, df := range dataFiles(t) {
			data, err := os.ReadFile(df.path)
			if err != nil {
				t.Fatal(err)
			}
			if df.format == Gemini && geminiDocument(data) {
				continue // not lines to grow by
			}
			sources = append(sources, source{filepath.Base(df.path), df.format, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")})
		}
	}
	chunk := appendChunk
	for _, c := range []struct {
		keep, chunk int
		growing     bool
	}{{0, chunk, false}, {0, 700, true}, {16 << 20, chunk, false}, {16 << 20, 700, true}} {
		keepBudget, appendChunk = c.keep, c.chunk
		for _, src := range sources {
			t.Run(fmt.Sprintf("%s/keep%d/growing=%v", src.name, c.keep, c.growing), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, src.name)
				streamed, err := filestore.Open(filepath.Join(dir, "a"), filestore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				whole, err := filestore.Open(filepath.Join(dir, "b"), filestore.Options{})
				if err != nil {
					t.Fatal(err)
				}
				ref, _, err := whole.Create("ref", backing.Meta{Title: "ref"})
				if err != nil {
					t.Fatal(err)
				}
				imp := New(streamed, Options{Format: src.format})
				steps := []int{len(src.lines)}
				if c.growing && len(src.lines) < 40 {
					steps = nil
					for n := 1; n <= len(src.lines); n++ {
						steps = append(steps, n)
					}
				}
				var name string
				for _, n := range steps {
					data := strings.Join(src.lines[:n], "\n") + "\n"
					if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
						t.Fatal(err)
					}
					res := imp.file(path)
					if res.Err != nil {
						t.Fatalf("%d lines: %v", n, res.Err)
					}
					name = res.Name
					dec, err := Decode(strings.NewReader(data), src.format)
					if err != nil {
						t.Fatal(err)
					}
					main, forks, err := dec.Branches()
					if err != nil {
						t.Fatal(err)
					}
					if _, err := storeMissing(ref, main, forks); err != nil {
						t.Fatal(err)
					}
					s, err := streamed.Session(name)
					if err != nil {
						t.Fatal(err)
					}
					got, want := branchDump(t, s), branchDump(t, ref)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%d lines: the streamed import stored\n%s\nwant\n%s", n, strings.Join(dumpLines(got), "\n"), strings.Join(dumpLines(want), "\n"))
					}
					orig, _, err := Original(s)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(orig, []byte(data)) {
						t.Fatalf("%d lines: Original gives %d bytes, not the source's %d", n, len(orig), len(data))
					}
				}
			})
		}
	}
}

func dumpLines(d map[string][]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(d)) {
		out = append(out, name+":")
		for _, l := range d[name] {
			out = append(out, "  "+l)
		}
	}
	return out
}

// writeBigSession writes a Claude Code session of about mb megabytes: a
// linear conversation of prompts, replies of a few kilobytes and, every
// so often, a tool result of a megabyte on one line.
func writeBigSession(t *testing.T, path string, mb int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rnd := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghij klmnopqrstuvwxyz\n"[rnd.IntN(28)]
		}
		return string(b)
	}
	parent, size := "", 0
	for i := 0; size < mb<<20; i++ {
		uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		var l string
		switch {
		case i%10 == 0:
			l = claudeLine(uuid, parent, "user", "question "+text(200))
		case i%97 == 0:
			l = claudeLine(uuid, parent, "user", text(1<<20))
		default:
			l = claudeLine(uuid, parent, "assistant", text(500+rnd.IntN(4000)))
		}
		parent = uuid
		n, _ := w.WriteString(l + "\n")
		size += n
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestImportChild is the import TestImportMemoryFlat runs in a process
// of its own, to read how much memory it took.
func TestImportChild(t *testing.T) {
	src, store := os.Getenv("SESSFS_IMPORT_CHILD_SOURCE"), os.Getenv("SESSFS_IMPORT_CHILD_STORE")
	if src == "" {
		t.Skip("run by TestImportMemoryFlat")
	}
	keepBudget, appendChunk = 1<<20, 1<<20 // the import's own bounds, at the test's scale
	st, err := filestore.Open(store, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := runOne(t, st, src); r.Err != nil || !r.Stored {
		t.Fatalf("%+v", r)
	}
}

// The memory an import takes does not grow with the source: a session
// eight times bigger imports in about the same resident memory (it grew
// by three times the source's size when an import read it whole).
func TestImportMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 40 MB")
	}
	dir := t.TempDir()
	for _, mb := range []int{4, 32} {
		writeBigSession(t, filepath.Join(dir, fmt.Sprintf("%d.jsonl", mb)), mb)
	}
	// Peak RSS, of a process of its own. On a machine busy with other
	// test binaries the collector can run late and a peak overshoot (CI
	// once saw 13 MB more), so a growth past the bound is measured once
	// more, each size's lower peak kept, before it fails.
	rss := map[int]int64{}
	for try := 0; try < 2 && (try == 0 || rss[32]-rss[4] > 12<<20); try++ {
		for _, mb := range []int{4, 32} {
			store := filepath.Join(dir, fmt.Sprintf("store%d-%d", mb, try))
			cmd := exec.Command(os.Args[0], "-test.run=^TestImportChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SESSFS_IMPORT_CHILD_SOURCE="+filepath.Join(dir, fmt.Sprintf("%d.jsonl", mb)),
				"SESSFS_IMPORT_CHILD_STORE="+store)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			if try == 0 || peak < rss[mb] {
				rss[mb] = peak
			}
			os.RemoveAll(store)
		}
	}
	t.Logf("resident memory: %d MB for 4 MB of source, %d MB for 32 MB", rss[4]>>20, rss[32]>>20)
	if grew := rss[32] - rss[4]; grew > 12<<20 {
		t.Errorf("the import of 28 MB more took %d MB more memory: it grows with the source", grew>>20)
	}
}
