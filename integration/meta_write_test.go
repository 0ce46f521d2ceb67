package integration

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// `echo '[1,2]' > meta.json` fails: the write that completes an invalid
// document (not an object, another id, invalid UTF-8) fails with EINVAL,
// so the shell says so; it used to exit 0, the error coming at close,
// which a shell drops. Nothing changes.
func TestMetaInvalidWriteFails(t *testing.T) {
	m, dir := appendFixture(t)
	path := dir + "/meta.json"
	before, snap := cat(t, path), storeSnapshot(t, m.StoreDir)
	unchanged := func(what string) {
		t.Helper()
		if got := cat(t, path); got != before {
			t.Errorf("%s changed meta.json:\n got %q\nwant %q", what, got, before)
		}
		if storeSnapshot(t, m.StoreDir) != snap {
			t.Errorf("%s changed the store", what)
		}
	}
	if r := runCmd(t, "", "bash", "-c", `echo '[1,2]' > "$1"`, "bash", path); r.code == 0 || !strings.Contains(r.stderr, "Invalid argument") {
		t.Errorf(`echo '[1,2]' > meta.json: %v, want a write error: Invalid argument`, r)
	}
	unchanged("echo '[1,2]' >")
	doc := metaOf(t, path)
	other := map[string]any{}
	for k, v := range doc {
		other[k] = v
	}
	other["id"] = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"
	otherID, _ := json.Marshal(other)
	doc["title"] = "Kept"
	kept, _ := json.Marshal(doc)
	for _, c := range []struct{ what, code string }{
		{"another id", `os.write(fd, A[1].encode())`},
		{"invalid UTF-8", `os.write(fd, A[2].encode().replace(b"Kept", b"K\xffpt"))`},
		{"a string", `os.write(fd, b'"meta"\n')`},
	} {
		wantErrno(t, "EINVAL", "a write of "+c.what, `
fd = os.open(A[0], os.O_WRONLY | os.O_TRUNC)
try:
    `+c.code+`
finally:
    try: os.close(fd)
    except OSError: pass
`, path, string(otherID), string(kept))
		unchanged("a write of " + c.what)
	}
}

// A document written in pieces is taken until it is complete, even when a
// piece ends in "}" or the buffer holds the old document's tail; a write
// refused leaves the open file's buffer as it was, so the writer can send
// a good document after it.
func TestMetaWriteInPieces(t *testing.T) {
	m, dir := appendFixture(t)
	path := dir + "/meta.json"
	doc := metaOf(t, path)
	doc["title"] = "In pieces"
	doc["nested"] = map[string]any{"a": 1}
	data, _ := json.Marshal(doc)
	cut := strings.Index(string(data), `"a":1}`) + len(`"a":1}`)
	wantOK(t, "write in three pieces", `
fd = os.open(A[0], os.O_WRONLY | os.O_TRUNC)
d = A[1].encode()
os.write(fd, d[:7])
os.write(fd, d[7:int(A[2])])   # ends with the "}" of the nested object
os.write(fd, d[int(A[2]):])
os.close(fd)
`, path, string(data), strconv.Itoa(cut))
	if got := storeMeta(t, m, "s").Title; got != "In pieces" {
		t.Errorf("title after a write in pieces = %q", got)
	}

	// Over the old document without truncating first, then ftruncate: the
	// buffer holds the old tail in between.
	doc = metaOf(t, path)
	doc["title"] = "Short"
	delete(doc, "nested")
	data, _ = json.Marshal(doc)
	wantOK(t, "write over the document, then ftruncate", `
fd = os.open(A[0], os.O_WRONLY)
os.write(fd, A[1].encode())
os.ftruncate(fd, len(A[1].encode()))
os.close(fd)
`, path, string(data))
	if got := storeMeta(t, m, "s").Title; got != "Short" {
		t.Errorf("title after an overwrite = %q", got)
	}

	doc["title"] = "After a refusal"
	data, _ = json.Marshal(doc)
	printed := wantOK(t, "a refused write, then a good one", `
fd = os.open(A[0], os.O_WRONLY | os.O_TRUNC)
try:
    os.write(fd, b"[1]")
except OSError as e:
    print("refused", errno.errorcode[e.errno])
os.write(fd, A[1].encode())
os.close(fd)
`, path, string(data))
	if printed != "refused EINVAL" {
		t.Errorf("write of [1]: %q, want refused EINVAL", printed)
	}
	if got := storeMeta(t, m, "s").Title; got != "After a refusal" {
		t.Errorf("title after a refused write and a good one = %q", got)
	}
}

// A save vim cannot make (the document is refused) leaves meta.json as it
// was, and vim, which keeps a backup while it writes ('writebackup', on by
// default), puts it back and does not say "Original file may be lost".
// Without a backup vim has nothing to put back and warns, though the
// store is unchanged all the same.
func TestMetaRefusedSaveVim(t *testing.T) {
	needProgram(t, "vim")
	m, dir := appendFixture(t)
	path := dir + "/meta.json"
	before, snap := cat(t, path), storeSnapshot(t, m.StoreDir)
	for _, c := range []struct {
		opts string
		warn bool
	}{
		// 'backupskip' cleared: vim makes no backup under /tmp, where
		// the test mounts.
		{"set backupskip=", false},
		{"set backupskip= backupcopy=auto", false},
		{"set nowritebackup", true},
	} {
		r := runCmd(t, "", "vim", "-E", "-s", "-V1", "-c", c.opts, "-c", "%d", "-c", `call setline(1, "[1]")`, "-c", "wq", path)
		out := r.stdout + r.stderr
		if r.code == 0 || !strings.Contains(out, "E667") {
			t.Errorf("vim %s: a refused save: %v; want exit 1 and E667 (the fsync after the refused write)", c.opts, r)
		}
		if got := strings.Contains(out, "Original file may be lost"); got != c.warn {
			t.Errorf("vim %s: warns the original may be lost: %v, want %v\n%s", c.opts, got, c.warn, trunc(out))
		}
		if got := cat(t, path); got != before {
			t.Errorf("vim %s: meta.json changed:\n got %q\nwant %q", c.opts, got, before)
		}
		if storeSnapshot(t, m.StoreDir) != snap {
			t.Errorf("vim %s: the store changed", c.opts)
		}
		run(t, "rm", "-f", dir+"/meta.json~")
	}
}
