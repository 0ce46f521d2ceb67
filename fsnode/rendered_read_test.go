package fsnode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// awsKey is a secret transcript.redacted.md masks (render's own example).
const awsKey = "AKIA" + "IOSFODNN7EXAMPLE"

// richSession is a session of three turns: short and long messages, a
// tool call, Markdown, non-ASCII text and a secret, and a fork, so that
// export.json lists two branches.
func richSession(t *testing.T) (backing.Store, backing.Session) {
	t.Helper()
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{Title: "Reading at any offset", Model: "m-1", Cwd: "/src/x"})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a line of the long answer, with ünïcödé ✓\n", 300) // ~13 KB: several pages
	var msgs [][]byte
	add := func(role, content, ts string) {
		b, err := json.Marshal(map[string]any{"role": role, "content": content, "ts": ts})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, b)
	}
	add("user", "What is in **this** folder? key "+awsKey, "2024-03-01T10:00:00Z")
	add("assistant", "Let me look.\n\n```sh\nls -la\n```\n", "2024-03-01T10:00:05Z")
	add("user", "And now the long one, please.", "2024-03-01T10:01:00Z")
	add("assistant", long, "2024-03-01T10:01:30Z")
	msgs = append(msgs, []byte(`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo <b>hi</b> & done"}}],"ts":"2024-03-01T10:01:40Z"}`))
	msgs = append(msgs, []byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"<b>hi</b> & done"}],"ts":"2024-03-01T10:01:41Z"}`))
	add("user", "Last: a table\n\n| a | b |\n|---|---|\n| 1 | 2 |", "2024-03-01T10:02:00Z")
	add("assistant", "Done — 完了.", "2024-03-01T10:02:10Z")
	if err := s.AppendID("", msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Fork("", 2, "alt"); err != nil {
		t.Fatal(err)
	}
	return st, s
}

// expected is a rendering as the render package makes it whole, with the
// offsets where its head ends, each piece ends, and its tail starts.
type expected struct {
	data   []byte
	bounds []int64
}

func wholeRendering(t *testing.T, s backing.Session, branch string, f format, turn int) expected {
	t.Helper()
	b, err := s.Branch(branch)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.ViewID(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	all, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	from, to := 0, len(all)
	var head, tail []byte
	if turn > 0 {
		if from, to, err = v.TurnRange(turn); err != nil {
			t.Fatal(err)
		}
	} else {
		h := TranscriptHeader(s, v)
		switch f {
		case formatMarkdown:
			head = render.MarkdownHead(h)
		case formatRedacted:
			head = render.Redact(render.MarkdownHead(h))
		case formatHTML:
			head, tail = render.HTMLHeadFor(h), render.HTMLTail()
		case formatJSON:
			meta, err := s.MetaBytes()
			if err != nil {
				t.Fatal(err)
			}
			bs, err := s.Branches()
			if err != nil {
				t.Fatal(err)
			}
			bj, _ := json.Marshal(bs)
			head, tail = render.JSONHead(render.JSONParts{Meta: meta, Tasks: []byte("{}"), Memory: []byte("{}"), Branches: bj, Branch: v.Branch().ID}), render.JSONTail()
		}
	}
	var ends backing.Endings // the turns' endings, read from the first message
	for _, m := range all {
		ends.Add(m)
	}
	e := expected{data: append([]byte(nil), head...), bounds: []int64{int64(len(head))}}
	for _, m := range all[from:to] {
		e.data = append(e.data, f.render(m, endingBefore(&ends, m))...)
		e.bounds = append(e.bounds, int64(len(e.data)))
	}
	e.data = append(e.data, tail...)
	e.bounds = append(e.bounds, int64(len(e.data)))
	return e
}

// Every rendering reads, whole and at any offset and size through one
// open, as the render package makes it: head, pieces and tail, and the
// size stat reports. Reads are checked at and around each boundary, past
// the end, and at random places.
func TestRenderedReadAnyRange(t *testing.T) {
	st, s := richSession(t)
	k := newKernel(t, st, Options{})
	for _, c := range []struct {
		path   string
		branch string
		format format
		turn   int
	}{
		{"s/transcript.md", "", formatMarkdown, 0},
		{"s/transcript.html", "", formatHTML, 0},
		{"s/transcript.redacted.md", "", formatRedacted, 0},
		{"s/messages.jsonl", "", formatJSONL, 0},
		{"s/export.json", "", formatJSON, 0},
		{"s/branches/main/export.json", "", formatJSON, 0},
		{"s/branches/alt/transcript.md", "alt", formatMarkdown, 0},
		{"s/branches/alt/export.json", "alt", formatJSON, 0},
		{"s/turns/2/transcript.md", "", formatMarkdown, 2},
		{"s/turns/3/messages.jsonl", "", formatJSONL, 3},
		{"s/branches/main/turns/1/transcript.md", "", formatMarkdown, 1},
	} {
		t.Run(strings.ReplaceAll(c.path, "/", "_"), func(t *testing.T) {
			want := wholeRendering(t, s, c.branch, c.format, c.turn)
			size := int64(len(want.data))
			a, errno := k.stat(c.path)
			if errno != 0 {
				t.Fatal(errno)
			}
			if int64(a.Size) != size || a.Mode != syscall.S_IFREG|0o444 {
				t.Errorf("stat: size %d mode %o, want %d and %o", a.Size, a.Mode, size, syscall.S_IFREG|0o444)
			}
			for _, req := range []int{1 << 20, 4096, 1000} {
				if got := k.catFile(c.path, req); !bytes.Equal(got, want.data) {
					t.Fatalf("cat in requests of %d: %d bytes, want %d; first difference at %d", req, len(got), size, firstDiff(got, want.data))
				}
			}
			h := k.mustOpen(c.path, syscall.O_RDONLY)
			defer h.release()
			check := func(off int64, n int) {
				t.Helper()
				got, errno := h.read(off, n)
				if errno != 0 {
					t.Fatalf("read %d at %d: %v", n, off, errno)
				}
				lo, hi := min(off, size), min(off+int64(n), size)
				if !bytes.Equal(got, want.data[lo:hi]) {
					t.Fatalf("read %d at %d: %q, want %q", n, off, clip(got), clip(want.data[lo:hi]))
				}
			}
			var offs []int64
			for _, b := range append([]int64{0, size + 1, size + 1000}, want.bounds...) {
				for d := int64(-1); d <= 1; d++ {
					if b+d >= 0 {
						offs = append(offs, b+d)
					}
				}
			}
			for _, off := range offs {
				for _, n := range []int{1, 3, 100, 5000, int(size) + 10} {
					check(off, n)
				}
			}
			// Ranges that start in one part and end in another: head to
			// tail, across each piece.
			for i := range want.bounds {
				for j := i; j < len(want.bounds); j++ {
					from, to := want.bounds[i]-1, want.bounds[j]+1
					if from < 0 {
						from = 0
					}
					check(from, int(to-from))
				}
			}
			r := rand.New(rand.NewSource(int64(len(c.path))))
			for range 100 {
				off := r.Int63n(size + 10)
				check(off, 1+r.Intn(3*4096))
			}
		})
	}
}

// The renderings are what they claim to be: messages.jsonl one line a
// message, export.json one JSON document with meta, both branches and
// every message, transcript.html a whole page, transcript.md a heading a
// turn; transcript.redacted.md masks the secret transcript.md shows.
func TestRenderedWholeDocuments(t *testing.T) {
	st, s := richSession(t)
	k := newKernel(t, st, Options{})
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	n := v.Len()
	lines := bytes.Split(bytes.TrimSuffix(k.catFile("s/messages.jsonl", 4096), []byte("\n")), []byte("\n"))
	if len(lines) != n {
		t.Errorf("messages.jsonl: %d lines, want %d", len(lines), n)
	}
	for i, l := range lines {
		if !json.Valid(l) {
			t.Errorf("messages.jsonl line %d is not JSON: %.60q", i+1, l)
		}
	}
	var doc struct {
		Meta     map[string]any   `json:"meta"`
		Branches []map[string]any `json:"branches"`
		Messages []json.RawMessage
	}
	if err := json.Unmarshal(k.catFile("s/export.json", 4096), &doc); err != nil {
		t.Fatalf("export.json: %v", err)
	}
	if doc.Meta["id"] != s.ID() || len(doc.Branches) != 2 || len(doc.Messages) != n {
		t.Errorf("export.json: meta id %v, %d branches, %d messages; want %s, 2, %d", doc.Meta["id"], len(doc.Branches), len(doc.Messages), s.ID(), n)
	}
	html := k.catFile("s/transcript.html", 4096)
	if !bytes.HasSuffix(html, render.HTMLTail()) || !bytes.Contains(html, []byte("&lt;b&gt;hi&lt;/b&gt;")) || bytes.Contains(html, []byte("<b>hi</b>")) {
		t.Errorf("transcript.html: not a whole page with the tool's output as text")
	}
	md := k.catFile("s/transcript.md", 4096)
	for _, want := range []string{"Reading at any offset", "## Turn 1", "## Turn 2", "## Turn 3", "完了", awsKey} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("transcript.md lacks %q", want)
		}
	}
	if red := k.catFile("s/transcript.redacted.md", 4096); bytes.Contains(red, []byte(awsKey)) || !bytes.Contains(red, []byte("## Turn 3")) {
		t.Errorf("transcript.redacted.md: secret shown or turns missing")
	}
	if alt := k.catFile("s/branches/alt/messages.jsonl", 4096); bytes.Count(alt, []byte("\n")) != 2 {
		t.Errorf("branches/alt/messages.jsonl: %d lines, want the 2 forked", bytes.Count(alt, []byte("\n")))
	}
}

// transcript.html and export.json read through one open as they were at
// open, whole, however the session grows meanwhile; the next open reads
// the new document. transcript.md, which only grows, is read as it is
// now, and an append through the mount tells the kernel at once: its new
// size, and the pages from the one that held the old end.
func TestRenderedGrowth(t *testing.T) {
	st, s := richSession(t)
	k := newKernel(t, st, Options{})
	oldHTML, oldJSON := wholeRendering(t, s, "", formatHTML, 0), wholeRendering(t, s, "", formatJSON, 0)
	oldMD := wholeRendering(t, s, "", formatMarkdown, 0)
	html := k.mustOpen("s/transcript.html", syscall.O_RDONLY)
	defer html.release()
	exp := k.mustOpen("s/export.json", syscall.O_RDONLY)
	defer exp.release()
	if got, errno := exp.read(0, 100); errno != 0 || !bytes.Equal(got, oldJSON.data[:100]) {
		t.Fatalf("export.json's first read: %v", errno)
	}
	md := k.mustOpen("s/transcript.md", syscall.O_RDONLY)
	defer md.release()
	mdNode := md.node
	if a, _ := k.statNode(mdNode, 0); int64(a.Size) != int64(len(oldMD.data)) {
		t.Fatalf("transcript.md: size %d, want %d", a.Size, len(oldMD.data))
	}

	app := k.mustOpen("s/append", syscall.O_WRONLY)
	line := `{"role":"user","content":"one more question","ts":"2024-03-01T11:00:00Z"}` + "\n"
	if n, errno := app.write(line, 0); errno != 0 || n != uint32(len(line)) {
		t.Fatalf("append: %d, %v", n, errno)
	}
	if errno := app.close(); errno != 0 {
		t.Fatalf("close of append: %v", errno)
	}

	if got := html.readAll(4096); !bytes.Equal(got, oldHTML.data) {
		t.Errorf("transcript.html open before the append: %d bytes, want the %d it had", len(got), len(oldHTML.data))
	}
	if got := exp.readAll(1000); !bytes.Equal(got, oldJSON.data) {
		t.Errorf("export.json open before the append: %d bytes, want the %d it had", len(got), len(oldJSON.data))
	}
	newJSON := wholeRendering(t, s, "", formatJSON, 0)
	if got := k.catFile("s/export.json", 4096); !bytes.Equal(got, newJSON.data) || !json.Valid(got) || len(got) <= len(oldJSON.data) {
		t.Errorf("export.json opened after the append: %d bytes, want %d, whole JSON", len(got), len(newJSON.data))
	}
	if got := k.catFile("s/transcript.html", 4096); !bytes.Equal(got, wholeRendering(t, s, "", formatHTML, 0).data) {
		t.Errorf("transcript.html opened after the append differs from the rendering")
	}

	newMD := wholeRendering(t, s, "", formatMarkdown, 0)
	if got := md.readAll(4096); !bytes.Equal(got, newMD.data) {
		t.Errorf("transcript.md, open before the append: %d bytes, want the %d it has now", len(got), len(newMD.data))
	}
	if a, _ := k.statNode(mdNode, 0); int64(a.Size) != int64(len(newMD.data)) {
		t.Errorf("transcript.md: size %d after the append, want %d", a.Size, len(newMD.data))
	}
	want := notification{mdNode, int64(len(oldMD.data)) &^ (pageSize - 1), 0}
	found := false
	for _, c := range k.tell.contentOf(mdNode) {
		found = found || c == want
	}
	if !found {
		t.Errorf("transcript.md: told %v, want the pages from %d dropped", k.tell.contentOf(mdNode), want.off)
	}
}

// A rendering opened for writing is refused, for its owner too.
func TestRenderedOpenForWriting(t *testing.T) {
	st, _ := richSession(t)
	k := newKernel(t, st, Options{})
	for _, p := range []string{"s/transcript.md", "s/transcript.html", "s/export.json", "s/messages.jsonl", "s/transcript.redacted.md", "s/turns/1/transcript.md", "s/branches/main/info.json"} {
		for _, fl := range []uint32{syscall.O_WRONLY, syscall.O_RDWR, syscall.O_WRONLY | syscall.O_APPEND} {
			if _, errno := k.open(p, fl); errno != syscall.EACCES {
				t.Errorf("open %s with %#o: %v, want EACCES", p, fl, errno)
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func clip(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%s…(%d bytes)", b[:80], len(b))
	}
	return string(b)
}
