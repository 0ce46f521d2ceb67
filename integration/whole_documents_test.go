package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// documentReader reads export.json and transcript.html over and over, with
// python3 and with cat, until the stop file exists, and checks every read:
// export.json parses as JSON, transcript.html has its head once and ends
// with its tail. It prints how many reads it made and the first bad one.
const documentReader = `
import json, os, subprocess, sys
path, how, stop = sys.argv[1], sys.argv[2], sys.argv[3]
reads, bad, first = 0, 0, ""
while not os.path.exists(stop):
    if how == "cat":
        data = subprocess.run(["cat", path], capture_output=True, check=True).stdout
    else:
        with open(path, "rb") as f:
            data = f.read()
    reads += 1
    ok = True
    if path.endswith(".json"):
        try:
            json.loads(data)
        except ValueError as e:
            ok, why = False, str(e)
    else:
        ok = data.endswith(b"</html>\n") and data.count(b"<!doctype html>") == 1 and data.count(b"</html>") == 1
        why = "head %d times, tail %d times, ends %r" % (data.count(b"<!doctype html>"), data.count(b"</html>"), data[-20:])
    if not ok:
        bad += 1
        first = first or "%d bytes: %s" % (len(data), why)
print(reads, bad, first)
`

// A read sees a document as it was or as it is, never a mix: while one
// writer appends 500 messages through the mount and another 40 with the
// CLI, readers of export.json and transcript.html through the same mount
// (python3 and cat) never get the old closing bracket or tag in the middle
// with newer messages after it, nor a document cut at an old size.
func TestWholeDocumentsWhileAppending(t *testing.T) {
	needCLI(t)
	m := newMount(t)
	newSession(t, m.Store, "s", "", conversation...)
	stop := filepath.Join(t.TempDir(), "stop")
	readers := []struct{ file, how string }{
		{"export.json", "python"},
		{"transcript.html", "cat"},
		{"export.json", "cat"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*cmdTimeout)
	defer cancel()
	results := make([]string, len(readers))
	var wg sync.WaitGroup
	for i, r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := exec.CommandContext(ctx, "python3", "-c", documentReader, m.P("s", r.file), r.how, stop).CombinedOutput()
			if err != nil {
				results[i] = fmt.Sprintf("failed: %v: %s", err, out)
				return
			}
			results[i] = strings.TrimSpace(string(out))
		}()
	}
	var writers sync.WaitGroup
	writers.Add(1)
	go func() {
		defer writers.Done()
		for i := range 40 {
			if r := cliResult(t, m.StoreDir, "", "append", "s", fmt.Sprintf("from the CLI %d", i)); r.code != 0 {
				t.Errorf("sessfs append: %v", r)
				return
			}
		}
	}()
	wantOK(t, "500 appends through the mount", `
fd = os.open(A[0], os.O_WRONLY | os.O_APPEND)
for i in range(500):
    os.write(fd, (json.dumps({"role": "assistant" if i % 2 else "user", "content": "message %d " % i + "words " * 200}) + "\n").encode())
os.close(fd)
`, m.P("s", "append"))
	writers.Wait()
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, r := range readers {
		var reads, bad int
		var first string
		fmt.Sscan(results[i], &reads, &bad)
		if j := strings.Index(results[i], " "); j >= 0 {
			if k := strings.Index(results[i][j+1:], " "); k >= 0 {
				first = results[i][j+1+k+1:]
			}
		}
		t.Logf("%s by %s: %d reads, %d bad", r.file, r.how, reads, bad)
		switch {
		case reads == 0:
			t.Errorf("%s by %s: %s", r.file, r.how, results[i])
		case bad > 0:
			t.Errorf("%s by %s: %d of %d reads were not one whole document; the first: %s", r.file, r.how, bad, reads, first)
		}
	}
	// And after the appends, each document is whole and has them all.
	if got := len(parseJSONL(t, cat(t, m.P("s", "messages.jsonl")))); got != len(conversation)+540 {
		t.Errorf("%d messages, want %d", got, len(conversation)+540)
	}
}
