package main

// The sources of -scale: Claude Code session files made of the real
// sessions' lines (setup, not measured).

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/sessfs/sessfs/integration/realdata"
)

// scaleWord is the word row S7 greps for: the generator puts it in the
// first prompt of one short session in grepEvery, so that grep -l finds a
// few sessions and reads the others to their end.
const (
	scaleWord = "zanzibar"
	grepEvery = 50
)

// episode is one real Claude Code session, its lines in file order (no
// newline).
type episode [][]byte

// realEpisodes reads the real Claude Code sessions of ../shared. Only files
// of which every line carries "sessionId":" are taken: that is how Claude
// Code writes a line (compact JSON); the hand-made fixtures beside them
// (spaced JSON, made-up ids, lines without a parent) are not what a user's
// store holds and would take other paths through the importer.
func realEpisodes() ([]episode, error) {
	files, err := realdata.Files("claude-code")
	if err != nil {
		return nil, err
	}
	var eps []episode
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var ep episode
		real := true
		for _, l := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
			if !bytes.Contains(l, []byte(`"sessionId":"`)) {
				real = false
				break
			}
			ep = append(ep, l)
		}
		if real && len(ep) > 0 {
			eps = append(eps, ep)
		}
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("no real Claude Code session in %s (realdata.Shared): -scale replays their lines", realdata.Shared())
	}
	return eps, nil
}

// scaleSources is what generate wrote.
type scaleSources struct {
	root     string // the projects folder, as ~/.claude/projects
	bytes    int64  // of every file
	files    []string
	long     string // the long session's file
	longName string // its session's name in the store (its slug)
	longSize int64
	needle   []string // the files holding scaleWord
	names    []string // each file's session name, as files
}

// generator writes sessions by replaying the real episodes, one after the
// other from a random one, each line with fresh ids: a new sessionId a
// file, a fresh uuid a line with parentUuid the line before it (a linear
// session), a fresh message.id and requestId a response of the episode
// (its lines still share them), fresh tool_use ids (a call and its result
// still agree), and timestamps that increase.
type generator struct {
	eps []episode
	rnd *rand.Rand
	ts  time.Time
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func (g *generator) uuid() string {
	a, b := g.rnd.Uint64(), g.rnd.Uint64()
	a = a&^(0xf<<12) | 4<<12 // version 4
	b = b&^(3<<62) | 2<<62   // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// token is prefix and n base62 characters, the shape of Anthropic's ids.
func (g *generator) token(prefix string, n int) string {
	b := []byte(prefix)
	for range n {
		b = append(b, base62[g.rnd.IntN(len(base62))])
	}
	return string(b)
}

// session writes one session file of about lines lines (whole episodes
// cut at lines) and returns its size.
func (g *generator) session(path, slug, cwd string, lines int, needle bool) int64 {
	f := must1(os.Create(path))
	w := bufio.NewWriterSize(f, 1<<20)
	sid := g.uuid()
	prev := ""
	var n int64
	ep, at := g.rnd.IntN(len(g.eps)), 0
	ids := map[string]string{} // an episode's ids to their fresh ones, for this replay of it
	var out []byte
	for i := 0; i < lines; i++ {
		if at == len(g.eps[ep]) {
			ep, at = (ep+1)%len(g.eps), 0
			clear(ids)
		}
		l := g.eps[ep][at]
		at++
		g.ts = g.ts.Add(time.Duration(500+g.rnd.IntN(3000)) * time.Millisecond)
		uuid := ""
		if bytes.Contains(l, []byte(`"uuid":"`)) {
			uuid = g.uuid()
		}
		out = g.rewrite(out[:0], l, sid, uuid, prev, slug, cwd, ids)
		if needle && bytes.Contains(out, []byte(`"role":"user","content":"`)) {
			out = bytes.Replace(out, []byte(`"role":"user","content":"`), []byte(`"role":"user","content":"`+scaleWord+` `), 1)
			needle = false
		}
		if uuid != "" {
			prev = uuid
		}
		out = append(out, '\n')
		must1(w.Write(out))
		n += int64(len(out))
	}
	must(w.Flush())
	must(f.Close())
	return n
}

// rewrite appends to out line l with its ids replaced: the value of each
// key below wherever it occurs as a key (an escaped one, inside a string,
// is left alone), and every tool_use id.
func (g *generator) rewrite(out, l []byte, sid, uuid, prev, slug, cwd string, ids map[string]string) []byte {
	ts := g.ts.UTC().Format("2006-01-02T15:04:05.000Z")
	fresh := func(old, prefix string, n int) string {
		if v, ok := ids[old]; ok {
			return v
		}
		v := g.token(prefix, n)
		ids[old] = v
		return v
	}
	for len(l) > 0 {
		// The next key of interest, or a tool_use id.
		best, key := -1, ""
		for _, k := range []string{`"sessionId":`, `"uuid":`, `"parentUuid":`, `"timestamp":`, `"slug":`, `"cwd":`, `"id":"msg_`, `"requestId":"req_`, `toolu_`} {
			if i := bytes.Index(l, []byte(k)); i >= 0 && (best < 0 || i < best) {
				best, key = i, k
			}
		}
		if best < 0 {
			return append(out, l...)
		}
		out = append(out, l[:best]...)
		l = l[best:]
		if key == `toolu_` {
			end := len(key)
			for end < len(l) && bytes.IndexByte([]byte(base62), l[end]) >= 0 {
				end++
			}
			out = append(out, fresh(string(l[:end]), "toolu_01", 22)...)
			l = l[end:]
			continue
		}
		// key, then a string value or null.
		colon := bytes.IndexByte(l, ':')
		out = append(out, l[:colon+1]...)
		l = l[colon+1:]
		var old []byte
		switch {
		case bytes.HasPrefix(l, []byte("null")):
			l = l[4:]
		case bytes.HasPrefix(l, []byte(`"`)):
			end := bytes.IndexByte(l[1:], '"') + 1
			old, l = l[1:end], l[end+1:]
		default: // a value of another kind: kept
			continue
		}
		var v string
		switch key {
		case `"sessionId":`:
			v = sid
		case `"uuid":`:
			v = uuid
		case `"parentUuid":`:
			v = prev
		case `"timestamp":`:
			v = ts
		case `"slug":`:
			v = slug
		case `"cwd":`:
			v = cwd
		case `"id":"msg_`:
			v = fresh(string(old), "msg_01", 22)
		case `"requestId":"req_`:
			v = fresh(string(old), "req_011C", 18)
		}
		if v == "" { // the parent of a session's first line
			out = append(out, "null"...)
		} else {
			out = append(out, '"')
			out = append(out, v...)
			out = append(out, '"')
		}
	}
	return out
}

// scaleProjects is how many project folders the sessions are spread over.
const scaleProjects = 20

// generate writes sources of about size bytes under dir/projects: one long
// linear session of a fifth of size, as the 200 MB one of the issue, and
// short ones of 50–500 lines for the rest.
func generate(dir string, size int64) (*scaleSources, error) {
	eps, err := realEpisodes()
	if err != nil {
		return nil, err
	}
	var epBytes, epLines int64
	for _, ep := range eps {
		for _, l := range ep {
			epBytes += int64(len(l)) + 1
			epLines++
		}
	}
	perLine := epBytes / epLines // about what a rewritten line takes too
	g := &generator{eps: eps, rnd: rand.New(rand.NewPCG(1, 2)), ts: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	src := &scaleSources{root: filepath.Join(dir, "projects")}
	project := func(i int) (string, string) {
		cwd := fmt.Sprintf("/home/user/src/project%02d", i%scaleProjects)
		d := filepath.Join(src.root, fmt.Sprintf("-home-user-src-project%02d", i%scaleProjects))
		must(os.MkdirAll(d, 0o755))
		return d, cwd
	}
	add := func(i int, slug string, lines int, needle bool) (string, int64) {
		d, cwd := project(i)
		p := filepath.Join(d, g.uuid()+".jsonl")
		n := g.session(p, slug, cwd, lines, needle)
		src.files = append(src.files, p)
		src.names = append(src.names, slug)
		src.bytes += n
		if needle {
			src.needle = append(src.needle, p)
		}
		return p, n
	}
	src.longName = "scale-long"
	src.long, src.longSize = add(0, src.longName, int(max(size/5/perLine, 1)), false)
	for i := 1; src.bytes < size; i++ {
		add(i, fmt.Sprintf("scale-s%05d", i), 50+g.rnd.IntN(451), i%grepEvery == 1)
	}
	return src, nil
}
