package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// A Run with workers imports as one file at a time does: the same
// Results in the same order, the same names (a title taken twice gives -2
// to the later file), the same sessions holding the same lines, a
// subagent's file linked to its session, a source found at two paths
// stored once (the second finds the first's session, whose lines may
// still be being stored), a grown copy adding its lines to it, a file
// imported before (read where it is, not ahead) grown, and a broken file
// failing in its place. Sources are over keepBudget, so most are decoded
// twice, by the workers.
func TestRunWorkersAsOneAtATime(t *testing.T) {
	defer func(b int) { keepBudget = b }(keepBudget)
	keepBudget = 600
	src := t.TempDir()
	write := func(rel, data string) string {
		p := filepath.Join(src, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	session := func(id, title string, n int) string {
		var b strings.Builder
		parent := ""
		for i := range n {
			u, a := fmt.Sprintf("%s-u%d", id, i), fmt.Sprintf("%s-a%d", id, i)
			prompt := title
			if i > 0 {
				prompt = fmt.Sprintf("and then step %d", i)
			}
			b.WriteString(strings.ReplaceAll(claudeLine(u, parent, "user", prompt), `"s1"`, `"`+id+`"`) + "\n")
			b.WriteString(strings.ReplaceAll(claudeLine(a, u, "assistant", strings.Repeat("done. ", 20)), `"s1"`, `"`+id+`"`) + "\n")
			parent = a
		}
		return b.String()
	}
	titles := []string{"Fix the parser", "Fix the lexer", "Fix the parser", "Write the docs", "Fix the parser", "Fix the lexer"}
	for i, title := range titles {
		write(fmt.Sprintf("p/s%d.jsonl", i), session(fmt.Sprintf("id%d", i), title, 1+i%4))
	}
	write("p/s0/subagents/agent-x.jsonl", strings.ReplaceAll(session("id0", "Look around", 2), `"type":`, `"isSidechain":true,"type":`))
	write("p/s7.jsonl", "not json\n")
	write("q/copy/s1.jsonl", session("id1", titles[1], 2))
	write("q/grown/s2.jsonl", session("id2", titles[2], 3+1))
	before := write("r/before.jsonl", session("id9", "Fix the parser", 1))

	type outcome struct {
		Path, Name  string
		Stored, New bool
		Failed      bool
	}
	run := func(workers int) ([]outcome, []string) {
		fst, err := filestore.Open(t.TempDir(), filestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The lines of fix-the-lexer are stored only once the copy of its
		// source is reached, which must wait for them.
		// (One at a time, they cannot wait.)
		st := &gatedStore{Store: fst, name: "fix-the-lexer", open: make(chan struct{})}
		if workers == 1 {
			close(st.open)
		}
		write("r/before.jsonl", session("id9", "Fix the parser", 1))
		if r := runOne(t, st, before); r.Err != nil || r.Name != "fix-the-parser" {
			t.Fatalf("first import: %+v", r)
		}
		write("r/before.jsonl", session("id9", "Fix the parser", 2))
		var got []outcome
		var progress []string
		imp := New(st, Options{Workers: workers, Progress: func(i, n int, path string) {
			progress = append(progress, fmt.Sprint(i, n, path))
			if strings.HasSuffix(path, "copy/s1.jsonl") && workers > 1 {
				close(st.open)
			}
		}})
		err = imp.Run([]string{filepath.Join(src, "p"), filepath.Join(src, "q"), filepath.Join(src, "r")}, func(r Result) {
			rel, _ := filepath.Rel(src, r.Path)
			got = append(got, outcome{Path: rel, Name: r.Name, Stored: r.Stored, New: r.New, Failed: r.Err != nil})
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(progress) != len(got) {
			t.Errorf("%d workers: %d progress calls for %d results", workers, len(progress), len(got))
		}
		names, _ := st.Names()
		var dump []string
		for _, name := range names {
			s, err := st.Session(name)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := s.Meta()
			parent := ""
			if m.Parent != "" {
				p, err := st.SessionByID(m.Parent)
				if err != nil {
					t.Fatal(err)
				}
				pm, _ := p.Meta()
				parent = pm.Name
			}
			data, _, err := Original(s)
			if err != nil {
				t.Fatal(err)
			}
			branches, _ := s.Branches()
			dump = append(dump, fmt.Sprintf("%s parent=%q branches=%d original=%q", name, parent, len(branches), data))
		}
		return got, dump
	}
	want, wantDump := run(1)
	if len(want) != 11 {
		t.Fatalf("one at a time: %+v", want)
	}
	for _, w := range want {
		if w.Path == "p/s7.jsonl" && !w.Failed || w.Path == "q/copy/s1.jsonl" && (w.Stored || w.Name != "fix-the-lexer") ||
			w.Path == "q/grown/s2.jsonl" && (!w.Stored || w.New || w.Name != "fix-the-parser-3") ||
			w.Path == "p/s4.jsonl" && w.Name != "fix-the-parser-4" ||
			w.Path == "r/before.jsonl" && (!w.Stored || w.New || w.Name != "fix-the-parser") {
			t.Errorf("one at a time: %+v", w)
		}
	}
	if !slices.ContainsFunc(wantDump, func(d string) bool {
		return strings.HasPrefix(d, `fix-the-parser-2-agent-x parent="fix-the-parser-2"`)
	}) {
		t.Errorf("one at a time, the subagent's file is not linked to its session:\n%s", strings.Join(wantDump, "\n"))
	}
	for _, workers := range []int{2, 3} {
		got, dump := run(workers)
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: Results\n%+v\nwant\n%+v", workers, got, want)
		}
		if !slices.Equal(dump, wantDump) {
			t.Errorf("%d workers: sessions\n%s\nwant\n%s", workers, strings.Join(dump, "\n"), strings.Join(wantDump, "\n"))
		}
	}
}

// gatedStore holds the first append to the session it creates under name
// until open is closed.
type gatedStore struct {
	backing.Store
	name string
	open chan struct{}
}

func (g *gatedStore) Create(name string, m backing.Meta) (backing.Session, backing.Meta, error) {
	s, m, err := g.Store.Create(name, m)
	if err == nil && name == g.name {
		s = &gatedSession{Session: s, open: g.open}
	}
	return s, m, err
}

type gatedSession struct {
	backing.Session
	open chan struct{}
}

func (g *gatedSession) AppendID(branchID string, msgs [][]byte) error {
	<-g.open
	return g.Session.AppendID(branchID, msgs)
}
