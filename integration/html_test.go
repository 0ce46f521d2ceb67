package integration

import (
	"encoding/json"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// chromium returns the path of Debian's Chromium; in CI (SESSFS_REQUIRE_FUSE=1)
// it must be there (.ci/run installs it), elsewhere the test is skipped.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SESSFS_REQUIRE_FUSE") == "1" {
		t.Fatal("chromium is not installed (apt-get install chromium) and SESSFS_REQUIRE_FUSE=1")
	}
	t.Skip("chromium is not installed")
	return ""
}

// screenshot renders url headless and decodes the PNG.
func screenshot(t *testing.T, browser, url string) image.Image {
	t.Helper()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1000,800", "--screenshot="+shot, url)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

// transcript.html of a real Claude Code session opens in Chromium, straight
// from the mount, and shows the first user message: blanking that text in
// a copy of the page changes the pixels of the first screen. A message
// hidden, collapsed or never drawn would change none.
func TestTranscriptHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	src := filepath.Join("..", "..", "shared", "data", "claude-code", "hello-world-script.jsonl")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no real session in ../shared/data")
	}
	m := newMount(t)
	name := strings.TrimSpace(cli(t, m.StoreDir, "import", src))
	page := m.P(name, "transcript.html")

	var doc struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
	}
	if err := json.Unmarshal([]byte(cat(t, m.P(name, "export.json"))), &doc); err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, msg := range doc.Messages {
		if msg.Role == "user" && json.Unmarshal(msg.Content, &first) == nil && first != "" {
			break
		}
	}
	// The message's text, not the title (which Claude Code took from it).
	escaped := `class="text">` + html.EscapeString(first)
	content := cat(t, page)
	if first == "" || !strings.Contains(content, escaped) {
		t.Fatalf("the first user message %q is not in transcript.html", first)
	}
	blank := filepath.Join(t.TempDir(), "blank.html")
	blanked := strings.Replace(content, escaped, `class="text">`+strings.Repeat("&nbsp;", len([]rune(first))), 1)
	if err := os.WriteFile(blank, []byte(blanked), 0o644); err != nil {
		t.Fatal(err)
	}

	shown := screenshot(t, browser, "file://"+page)
	without := screenshot(t, browser, "file://"+blank)
	if shown.Bounds() != without.Bounds() {
		t.Fatalf("screenshots of %v and %v", shown.Bounds(), without.Bounds())
	}
	differ, ink := 0, 0
	bg := shown.At(0, 0)
	for y := shown.Bounds().Min.Y; y < shown.Bounds().Max.Y; y++ {
		for x := shown.Bounds().Min.X; x < shown.Bounds().Max.X; x++ {
			if shown.At(x, y) != without.At(x, y) {
				differ++
			}
			if shown.At(x, y) != bg {
				ink++
			}
		}
	}
	if ink < 1000 {
		t.Errorf("the page renders nearly blank (%d pixels off the background)", ink)
	}
	if differ < 200 {
		t.Errorf("blanking the first user message changes %d pixels of the first screen: it is not shown", differ)
	}
	t.Logf("%s: %d pixels drawn, %d of them the first user message's", page, ink, differ)
}
