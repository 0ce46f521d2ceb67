package integration

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
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
	cannotRun(t, "chromium is not installed (apt-get install chromium)")
	return ""
}

// runChromium runs headless Chromium on url with a fresh profile, nothing
// in the background that could reach the network, and args, and returns
// what it printed on stdout.
func runChromium(t *testing.T, browser, url string, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.Command(browser, append(args, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// screenshot renders url headless in a window tall enough for the short
// sessions tested here (a screenshot of a page scrolled to an anchor is
// not drawn reliably), and decodes the PNG.
func screenshot(t *testing.T, browser, url string) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	runChromium(t, browser, url, "--window-size=1000,3000", "--screenshot="+shot)
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

// dumpDOM is the page's DOM as Chromium built it, serialized.
func dumpDOM(t *testing.T, browser, url string) string {
	t.Helper()
	return string(runChromium(t, browser, url, "--dump-dom"))
}

// pixelsChanged screenshots page and a copy of it in which edit has been
// applied, and returns how many pixels differ.
func pixelsChanged(t *testing.T, browser, page, content string, edit func(string) string) int {
	t.Helper()
	edited := edit(content)
	if edited == content {
		t.Fatalf("the edit changes nothing in %s", page)
	}
	copyPath := filepath.Join(t.TempDir(), "edited.html")
	if err := os.WriteFile(copyPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	shown := screenshot(t, browser, "file://"+page)
	without := screenshot(t, browser, "file://"+copyPath)
	if shown.Bounds() != without.Bounds() {
		t.Fatalf("screenshots of %v and %v", shown.Bounds(), without.Bounds())
	}
	differ := 0
	for y := shown.Bounds().Min.Y; y < shown.Bounds().Max.Y; y++ {
		for x := shown.Bounds().Min.X; x < shown.Bounds().Max.X; x++ {
			if shown.At(x, y) != without.At(x, y) {
				differ++
			}
		}
	}
	return differ
}

// cutElement removes the first element that begins with open after the
// first occurrence of after, up to and including the first close after it.
func cutElement(after, open, close string) func(string) string {
	return func(s string) string {
		i := strings.Index(s, after)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], open)
		if j < 0 {
			return s
		}
		j += i
		k := strings.Index(s[j:], close)
		if k < 0 {
			return s
		}
		return s[:j] + s[j+k+len(close):]
	}
}

// transcript.html of a real Claude Code session opens in Chromium, straight
// from the mount, and shows the first user message: blanking that text in
// a copy of the page changes the pixels of the screen. A message hidden,
// collapsed or never drawn would change none.
func TestTranscriptHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	src := sharedData(t, "claude-code/hello-world-script.jsonl")[0]
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
	// The message's text, not the title (which Claude Code took from it):
	// its first words, as the DOM holds them.
	words := strings.Join(strings.Fields(first)[:4], " ")
	content := cat(t, page)
	if first == "" || !strings.Contains(dumpDOM(t, browser, "file://"+page), `<div class="text"><p>`+words) {
		t.Fatalf("the first user message %q is not in transcript.html", first)
	}
	ink := 0
	shown := screenshot(t, browser, "file://"+page)
	bg := shown.At(0, 0)
	for y := shown.Bounds().Min.Y; y < shown.Bounds().Max.Y; y++ {
		for x := shown.Bounds().Min.X; x < shown.Bounds().Max.X; x++ {
			if shown.At(x, y) != bg {
				ink++
			}
		}
	}
	if ink < 1000 {
		t.Errorf("the page renders nearly blank (%d pixels off the background)", ink)
	}
	differ := pixelsChanged(t, browser, page, content, cutElement(`<article class="msg user">`, `<div class="text">`, `</div>`))
	if differ < 200 {
		t.Errorf("blanking the first user message changes %d pixels of the screen: it is not shown", differ)
	}
	t.Logf("%s: %d pixels drawn, %d of them the first user message's", page, ink, differ)
}

// testImage is a 48×48 square of one colour, as a PNG in base64: drawn,
// it is a block of that colour on the screen.
var testImageColor = color.NRGBA{R: 0xd0, G: 0x30, B: 0x30, A: 0xff}

func testImage(t *testing.T) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 48, 48))
	for y := range 48 {
		for x := range 48 {
			img.Set(x, y, testImageColor)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// colored counts the pixels of img within a few steps of c.
func colored(img image.Image, c color.NRGBA) int {
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d >= -6 && d <= 6 }
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r, c.R) && near(g, c.G) && near(b, c.B) {
				n++
			}
		}
	}
	return n
}

// markdownReply is an assistant's reply in Markdown, with raw HTML that
// must stay text.
const markdownReply = "# Results\n\n| run | result |\n|---|---|\n| first | **passed** |\n| second | failed |\n\n" +
	"All <b>done</b>. <script>document.title='x'</script>"

// appendLines writes JSON lines to a session's append file in the mount.
func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatalf("append: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkTranscriptHTML opens the transcript.html of a session to which a
// prompt with an image, a Markdown reply and a tool call running command
// were appended, and checks in Chromium's DOM and on the screen that the
// Markdown is drawn as a heading and a table, the image is drawn, and the
// call is collapsed with its command on its summary line.
func checkTranscriptHTML(t *testing.T, browser, page, command string) {
	t.Helper()
	content := cat(t, page)
	dom := dumpDOM(t, browser, "file://"+page)
	for _, want := range []string{
		"<h3>Results</h3>",
		"<table>",
		"<td><strong>passed</strong></td>",
		"All &lt;b&gt;done&lt;/b&gt;. &lt;script&gt;",
		`<img class="media" src="data:image/png;base64,`,
		`<details class="tool-call"><summary>tool call: `,
		`<code class="arg">` + htmlText(command) + `</code>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM of %s lacks %q", page, want)
		}
	}
	for _, bad := range []string{"<script", "<b>done", `class="tool-call" open`} {
		if strings.Contains(dom, bad) {
			t.Errorf("the DOM of %s holds %q", page, bad)
		}
	}

	// What was appended shows: the image in its colour, the heading and
	// the table, each drawn (removing it changes pixels).
	if n := colored(screenshot(t, browser, "file://"+page), testImageColor); n < 48*48*9/10 {
		t.Errorf("the image is not drawn: %d pixels of its colour", n)
	}
	reply := `<article class="msg assistant">` // the appended reply is the last
	for _, c := range []struct {
		what string
		edit func(string) string
	}{
		{"the image", cutElement(`Here is the chart`, `<img class="media"`, `>`)},
		{"the heading", func(s string) string {
			i := strings.LastIndex(s, reply)
			return s[:i] + cutElement(reply, "<h3>", "</h3>")(s[i:])
		}},
		{"the table", func(s string) string {
			i := strings.LastIndex(s, reply)
			return s[:i] + cutElement(reply, "<table>", "</table>")(s[i:])
		}},
	} {
		if n := pixelsChanged(t, browser, page, content, c.edit); n < 200 {
			t.Errorf("removing %s changes %d pixels: it is not drawn", c.what, n)
		}
	}

	// The call: its command is drawn on the summary line, and its input,
	// collapsed, is not.
	arg := `<code class="arg">` + htmlText(command) + `</code>`
	if n := pixelsChanged(t, browser, page, content, cutElement("", arg, arg)); n < 100 {
		t.Errorf("removing the command from the summary line changes %d pixels: it is not shown", n)
	}
	if n := pixelsChanged(t, browser, page, content, cutElement(arg, "<pre", "</pre>")); n != 0 {
		t.Errorf("removing the call's input changes %d pixels: it is not collapsed", n)
	}
}

// htmlText escapes s as both render and Chromium's DOM write text without
// quotes (the commands here have none).
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// transcript.html of a real Claude Code and a real Codex session, with a
// prompt holding an image and a Markdown reply appended: Chromium draws the
// Markdown, the image and a call of the session's own, collapsed, its
// command on the summary line. Claude Code's image is an image block and
// its call the session's Bash; Codex's image an input_image with a data:
// URL, its call an exec_command whose arguments are a JSON string.
func TestTranscriptHTMLAgents(t *testing.T) {
	browser := chromium(t)
	img := testImage(t)
	for _, c := range []struct {
		agent, src string
		lines      []string // appended to the session
		command    string   // of the call shown
	}{
		{"claude-code", "claude-code/hello-world-script.jsonl", []string{
			`{"role":"user","content":[{"type":"text","text":"Here is the chart."},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}}]}`,
			`{"role":"assistant","content":[{"type":"text","text":` + jsonString(markdownReply) + `}]}`,
		}, "chmod +x /tmp/tmp74wiyiny/hello.sh && /tmp/tmp74wiyiny/hello.sh"},
		{"codex", "codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl", []string{
			`{"role":"user","content":[{"type":"input_text","text":"Here is the chart."},{"type":"input_image","image_url":"data:image/png;base64,` + img + `"}]}`,
			`{"role":"assistant","content":[{"type":"function_call","name":"exec_command","call_id":"call_1","arguments":"{\"cmd\":\"ls -la /srv/charts\",\"workdir\":\"/srv\"}"}]}`,
			`{"role":"assistant","content":[{"type":"output_text","text":` + jsonString(markdownReply) + `}]}`,
		}, "ls -la /srv/charts"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			src := sharedData(t, c.src)[0]
			m := newMount(t)
			name := strings.TrimSpace(cli(t, m.StoreDir, "import", src))
			appendLines(t, m.P(name, "append"), c.lines...)
			checkTranscriptHTML(t, browser, m.P(name, "transcript.html"), c.command)
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
