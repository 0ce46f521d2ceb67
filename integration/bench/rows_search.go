package main

// Row 11: the search index: its build, and queries against rg -l over the
// same sessions' logs.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// Words of the search store: a Zipf-distributed vocabulary, as natural
// text has, so that a common word is in most messages and a rare one in a
// few; plus a rare word in one session in a thousand and a phrase in one
// message in a hundred.
const (
	vocabulary = 50_000
	rareWord   = "quetzalcoatl"
	phrase     = "group commit batches"
)

func vocabWord(i uint64) string {
	if i == 0 {
		return "the"
	}
	var b []byte
	for ; i > 0; i /= 26 {
		b = append(b, byte('a'+i%26))
	}
	return "w" + string(b)
}

// fillSearch writes n messages of about size bytes of text each into the
// default branch of s (setup, not measured).
func fillSearch(s backing.Session, rnd *rand.Rand, zipf *rand.Zipf, n, size int, rare bool) int64 {
	b := must1(s.Branch(""))
	path := filepath.Join(sessionDir(s), "logs", b.ID+".jsonl")
	f := must1(os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600))
	w := bufio.NewWriterSize(f, 1<<20)
	var text int64
	for i := range n {
		var sb strings.Builder
		for sb.Len() < size {
			sb.WriteString(vocabWord(zipf.Uint64()))
			sb.WriteByte(' ')
		}
		if rnd.Intn(100) == 0 {
			sb.WriteString(phrase)
		}
		if rare && i == n/2 {
			sb.WriteString(" " + rareWord)
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		line := must1(json.Marshal(map[string]string{"role": role, "content": sb.String(),
			"id": fmt.Sprintf("01900000-0000-7000-8000-%012d", i), "ts": "2026-01-01T00:00:00Z"}))
		w.Write(append(line, '\n'))
		text += int64(sb.Len())
	}
	must(w.Flush())
	must(f.Close())
	return text
}

func rowSearch(c *config) []Row {
	st := newStore(c, filestore.Options{Sync: filestore.SyncNone})
	rnd := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(rnd, 1.1, 2, vocabulary-1)
	var text int64
	t0 := time.Now()
	for i := range c.searchSess {
		s, _ := must2(st.Create(fmt.Sprintf("f%05d", i), backing.Meta{}))
		text += fillSearch(s, rnd, zipf, c.searchMsgs, c.searchMsgSize, i%1000 == 0)
	}
	fmt.Fprintf(os.Stderr, "  made %d sessions, %d MB of text, in %.1fs\n", c.searchSess, text>>20, time.Since(t0).Seconds())

	st = reopen(st)
	t0 = time.Now()
	must(st.Reindex(nil))
	build := time.Since(t0)
	mbps := float64(text) / 1e6 / build.Seconds()
	build1 := Row{Row: fmt.Sprintf("11a index build, %d MB of text", text/1e6), Unit: "MB/s",
		Sessfs: Stat{Median: mbps, Min: mbps, Max: mbps}, Target: "≥ 50 MB/s",
		Note: fmt.Sprintf("%s sessions, one build (%.1fs)", count(c.searchSess), build.Seconds())}
	build1.Ratio = mbps
	build1.setTarget(mbps, 50, true)
	rows := []Row{build1}

	st = reopen(st) // a fresh process's first queries
	logs := filepath.Join(st.Root(), "sessions")
	for _, q := range []struct {
		id, what, text string
		limit          int
		rg             []string
	}{
		{"11b", "rare word", rareWord, 20, []string{"-l", rareWord}},
		{"11c", "common word, newest 20", "the", 20, []string{"-l", "the"}},
		{"11d", "phrase", `"` + phrase + `"`, 20, []string{"-l", phrase}},
	} {
		var sv, nv []float64
		for range c.runs * 4 {
			t0 := time.Now()
			must1(st.Search(backing.Query{Text: q.text, Limit: q.limit}))
			sv = append(sv, ms(time.Since(t0)))
		}
		for range c.runs {
			t0 := time.Now()
			cmd := exec.Command("rg", append(q.rg, logs)...)
			cmd.Stdout = nil
			if err := cmd.Run(); err != nil {
				must(fmt.Errorf("rg %v: %w", q.rg, err))
			}
			nv = append(nv, ms(time.Since(t0)))
		}
		sort.Float64s(sv)
		p99 := sv[(len(sv)*99)/100]
		r := Row{Row: fmt.Sprintf("%s search, %s", q.id, q.what), Unit: "ms", Sessfs: stat(sv), Target: "≥ 10×",
			Note: fmt.Sprintf("p99 %.1f ms; native: rg -l over the sessions' logs", p99)}
		n := stat(nv)
		r.Native = &n
		r.Ratio = n.Median / r.Sessfs.Median
		r.setTarget(r.Ratio, 10, true)
		rows = append(rows, r)
	}
	return rows
}
