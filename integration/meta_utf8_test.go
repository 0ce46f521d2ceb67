package integration

import "testing"

// meta.json written through the mount with invalid UTF-8, in a known field
// or in one of the user's own, fails with EINVAL and leaves the store as it
// was (not U+FFFD in the title, not raw bytes in the custom field).
func TestMetaInvalidUTF8(t *testing.T) {
	m := newMount(t)
	newSession(t, m.Store, "s", "Title", jsonMsg("user", "hello"))
	path := m.P("s", "meta.json")
	const write = `
p, old, new = A[0], A[1].encode(), A[2].encode() + b"\xff\""
data = json.dumps(json.load(open(p))).encode().replace(old, new)
assert new in data
fd = os.open(p, os.O_WRONLY | os.O_TRUNC)
try:
    os.write(fd, data)
finally:
    os.close(fd)
`
	before := storeSnapshot(t, m.StoreDir)
	wantErrno(t, "EINVAL", "invalid UTF-8 in the title", write, path, `"Title"`, `"bad `)
	if after := storeSnapshot(t, m.StoreDir); after != before {
		t.Errorf("a refused title changed the store:\n%s\nwas\n%s", after, before)
	}
	wantOK(t, "add a field of the user's", pyEditMeta, path, `{"mine": "ok"}`)
	before = storeSnapshot(t, m.StoreDir)
	wantErrno(t, "EINVAL", "invalid UTF-8 in a field of the user's", write, path, `"ok"`, `"bad `)
	if after := storeSnapshot(t, m.StoreDir); after != before {
		t.Errorf("a refused field changed the store:\n%s\nwas\n%s", after, before)
	}
}
