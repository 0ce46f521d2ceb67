package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// transcript.html, export.json and transcript.redacted.md read exactly as
// `sessfs export` writes them, and stay whole documents as the session
// grows (their tail moves: the pages holding it must not go stale),
// through the mount at once and from the CLI within the attribute timeout,
// and as the title changes.
func TestFramedRenderings(t *testing.T) {
	m, dir := appendFixture(t)
	same := func(file string, args ...string) (bool, string) {
		got := cat(t, dir+"/"+file)
		want := cli(t, m.StoreDir, "export", append(args, "s")...)
		return got == want, file + ":\n" + got + "\nwant:\n" + want
	}
	checkAll := func(when string) {
		t.Helper()
		for _, c := range []struct {
			file string
			args []string
		}{
			{"transcript.html", []string{"--format", "html"}},
			{"export.json", []string{"--format", "json"}},
			{"transcript.redacted.md", []string{"--redact"}},
		} {
			eventually(t, 3*time.Second, when+": "+c.file+" as sessfs export writes it", func() (bool, string) {
				return same(c.file, c.args...)
			})
		}
		var doc struct{ Messages []json.RawMessage }
		if err := json.Unmarshal([]byte(cat(t, dir+"/export.json")), &doc); err != nil {
			t.Fatalf("%s: export.json is not one JSON document: %v", when, err)
		}
		if html := cat(t, dir+"/transcript.html"); !strings.HasSuffix(html, "</html>\n") {
			t.Fatalf("%s: transcript.html ends %q", when, html[max(0, len(html)-40):])
		}
	}
	checkAll("at first")
	for i := range 3 {
		cat(t, dir+"/export.json") // the page cache holds the old tail
		cat(t, dir+"/transcript.html")
		sh(t, `echo "mount append $2 with ghp_abcdefghijklmnopqrstuvwxyz0123456789" >> "$1/append"`, dir, string(rune('a'+i)))
		if ok, msg := same("export.json", "--format", "json"); !ok {
			t.Fatalf("right after an append through the mount: %s", msg)
		}
		cli(t, m.StoreDir, "append", "s", "from the CLI")
		checkAll("after appends")
	}
	if red := cat(t, dir+"/transcript.redacted.md"); strings.Contains(red, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("transcript.redacted.md shows the token:\n%s", red)
	}
	wantOK(t, "edit meta.json", pyEditMeta, m.P("s", "meta.json"), `{"title": "A new <title>"}`)
	checkAll("after a new title")
	if html := cat(t, dir+"/transcript.html"); !strings.Contains(html, "A new &lt;title&gt;") {
		t.Errorf("transcript.html does not show the new title")
	}
}

// transcript.html's tail can straddle a page boundary: the page before the
// one holding the old end must go too, or a reader sees the old tail's
// first bytes in the middle of the new file. The session is grown to end
// exactly so, deterministically.
func TestHTMLTailAcrossPages(t *testing.T) {
	m, dir := appendFixture(t)
	path := dir + "/transcript.html"
	tail := int64(len("</main>\n</body>\n</html>\n"))
	appendText := func(n int) int64 {
		cli(t, m.StoreDir, "append", "s", strings.Repeat("x", n))
		var size int64
		eventually(t, 3*time.Second, "the mount seeing the append", func() (bool, string) {
			got := cat(t, path)
			size = int64(len(got))
			return got == cli(t, m.StoreDir, "export", "--format", "html", "s"), ""
		})
		return size
	}
	s0 := int64(len(cat(t, path)))
	s1 := appendText(10)
	overhead := s1 - s0 - 10
	// The next size past a page boundary by less than the tail's length.
	target := (s1/4096+1)*4096 + tail/2
	if target-s1-overhead < 1 {
		target += 4096
	}
	if got := appendText(int(target - s1 - overhead)); got != target {
		t.Fatalf("grew to %d bytes, want %d (overhead %d)", got, target, overhead)
	}
	cat(t, path) // the old tail is in the page cache, across two pages
	sh(t, `echo "one more" >> "$1/append"`, dir)
	got, want := cat(t, path), cli(t, m.StoreDir, "export", "--format", "html", "s")
	if got != want {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("after growth across a page boundary, transcript.html differs at byte %d: %q, want %q",
			i, got[i:min(len(got), i+40)], want[i:min(len(want), i+40)])
	}
}
