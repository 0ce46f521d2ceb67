package integration

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// metaOf parses meta.json as read through the mount.
func metaOf(t *testing.T, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(cat(t, path)), &m); err != nil {
		t.Fatalf("%s is not a JSON object: %v", path, err)
	}
	return m
}

// Python edits: read the document, change fields, write it back.
const pyEditMeta = `
p, changes = A[0], json.loads(A[1])
doc = json.load(open(p))
doc.update(changes)
with open(p, "w") as f:   # O_WRONLY|O_CREAT|O_TRUNC, one write, close
    f.write(json.dumps(doc, indent=2) + "\n")
`

// Truncate and write, as `python3 open('w')` and most tools do, replaces
// the document at close.
func TestMetaTruncateWrite(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "Old title", conversation...)
	path := m.P("s", "meta.json")
	before := metaOf(t, path)
	wantOK(t, "edit meta.json", pyEditMeta, path, `{"title": "New title", "tags": ["x", "y"], "mine": {"k": 1}}`)
	after := metaOf(t, path)
	if after["title"] != "New title" || storeMeta(t, m, "s").Title != "New title" {
		t.Errorf("title after the edit: mount %v, store %q; want New title", after["title"], storeMeta(t, m, "s").Title)
	}
	if mine, _ := after["mine"].(map[string]any); mine["k"] != 1.0 {
		t.Errorf("a field of the user's own was not kept: %v", after)
	}
	if after["id"] != before["id"] || after["created"] != before["created"] {
		t.Errorf("id or created changed: %v -> %v", before, after)
	}
	if got := statSize(t, path); got != int64(len(cat(t, path))) {
		t.Errorf("meta.json: stat %d, cat %d bytes", got, len(cat(t, path)))
	}
	// The shell's way: echo > meta.json.
	doc := cat(t, path)
	sh(t, `printf '%s' "$2" > "$1"`, path, strings.Replace(doc, "New title", "Shell title", 1))
	if got := metaOf(t, path)["title"]; got != "Shell title" {
		t.Errorf("title after > meta.json = %v", got)
	}
}

// An editor's save: write a temporary file in the session folder, rename
// it onto meta.json. The title changes and the temporary file is gone.
func TestMetaTempAndRename(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "Old title", conversation...)
	path := m.P("s", "meta.json")
	doc := metaOf(t, path)
	doc["title"] = "Renamed-in title"
	data, _ := json.MarshalIndent(doc, "", "  ")
	wantOK(t, "write a temp file and rename it onto meta.json", `
tmp = os.path.join(os.path.dirname(A[0]), "meta.json.tmp")
with open(tmp, "w") as f:
    f.write(A[1])
    f.flush()
    os.fsync(f.fileno())
os.rename(tmp, A[0])
`, path, string(data))
	if got := storeMeta(t, m, "s").Title; got != "Renamed-in title" {
		t.Errorf("store title after the rename = %q, want Renamed-in title", got)
	}
	eventually(t, 2*time.Second, "meta.json showing the new title", func() (bool, string) {
		got := metaOf(t, path)
		return got["title"] == "Renamed-in title" && got["id"] == doc["id"], cat(t, path)
	})
	if got := ls(t, m.P("s")); contains(got, "meta.json.tmp") {
		t.Errorf("the temporary file is still listed: %q", got)
	}
	// Renaming an invalid document onto meta.json fails and changes nothing.
	before := cat(t, path)
	wantErrno(t, "EINVAL", "rename a non-JSON temp file onto meta.json", `
tmp = os.path.join(os.path.dirname(A[0]), "meta.json.bad")
with open(tmp, "w") as f:
    f.write("not json")
os.rename(tmp, A[0])
`, path)
	if got := cat(t, path); got != before {
		t.Errorf("a refused rename changed meta.json:\n got %q\nwant %q", got, before)
	}
	// An editor's leftover can be removed.
	run(t, "rm", "-f", m.P("s", "meta.json.bad"))
	if got := ls(t, m.P("s")); contains(got, "meta.json.bad") {
		t.Errorf("rm of a scratch file left it: %q", got)
	}
}

// A bad edit (another id, or not JSON, or not an object) fails with EINVAL
// and leaves meta.json as it was: at the write when the document is
// complete JSON, else at close.
func TestMetaBadEdit(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "Kept title", conversation...)
	path := m.P("s", "meta.json")
	before := cat(t, path)
	doc := metaOf(t, path)
	doc["id"] = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"
	doc["title"] = "Should not stick"
	otherID, _ := json.Marshal(doc)
	for _, c := range []struct{ bad, printed string }{
		{string(otherID), ""},
		{"not json at all", "written"},
		{`["an", "array"]`, ""},
		{`{"title": "no id"}`, ""},
	} {
		bad := c.bad
		status, printed := py(t, `
fd = os.open(A[0], os.O_WRONLY | os.O_TRUNC)
os.write(fd, A[1].encode())
print("written")
os.close(fd)
`, path, bad)
		if printed != c.printed || status != "ERR EINVAL" {
			t.Errorf("edit to %q: printed %q, then %s; want %q and EINVAL", trunc(bad), printed, status, c.printed)
		}
		if got := cat(t, path); got != before {
			t.Errorf("after the refused edit %q meta.json changed:\n got %q\nwant %q", trunc(bad), got, before)
		}
	}
	if got := storeMeta(t, m, "s").Title; got != "Kept title" {
		t.Errorf("store title = %q, want Kept title", got)
	}
}

// id and created cannot change: an edit that sets created is accepted for
// its other fields and keeps the store's created.
func TestMetaFixedFields(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "Old", conversation...)
	path := m.P("s", "meta.json")
	before := metaOf(t, path)
	wantOK(t, "edit created and title", pyEditMeta, path, `{"created": "2001-01-01T00:00:00Z", "title": "New"}`)
	after := metaOf(t, path)
	if after["title"] != "New" {
		t.Errorf("title = %v, want New", after["title"])
	}
	if after["created"] != before["created"] {
		t.Errorf("created changed: %v -> %v", before["created"], after["created"])
	}
	if after["id"] != before["id"] {
		t.Errorf("id changed: %v -> %v", before["id"], after["id"])
	}
	// Appends do not move updated, so an editor's save is not stale.
	u := after["updated"]
	sh(t, `echo a message >> "$1"`, m.P("s", "append"))
	if got := metaOf(t, path)["updated"]; got != u {
		t.Errorf("an append moved updated: %v -> %v", u, got)
	}
}
