package integration

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// touch of meta.json and of append succeeds (it failed with EPERM) and
// changes nothing: their times are the store's, and the store is left
// byte for byte as it was.
func TestTouchMetaAndAppend(t *testing.T) {
	m, dir := appendFixture(t)
	before := storeSnapshot(t, m.StoreDir)
	for _, f := range []string{dir + "/meta.json", dir + "/append", dir + "/branches/main/append"} {
		mtime := run(t, "stat", "-c", "%Y", f)
		run(t, "touch", f)
		run(t, "touch", "-m", "-d", "2001-02-03 04:05:06", f)
		run(t, "touch", "-a", f)
		if got := run(t, "stat", "-c", "%Y", f); got != mtime {
			t.Errorf("touch %s moved its mtime: %s -> %s", f, strings.TrimSpace(mtime), strings.TrimSpace(got))
		}
	}
	if after := storeSnapshot(t, m.StoreDir); after != before {
		t.Errorf("touch changed the store")
	}
	// Other attributes still refused.
	wantErrno(t, "EPERM", "chmod meta.json", `os.chmod(A[0], 0o600)`, dir+"/meta.json")
	wantErrno(t, "EPERM", "chmod append", `os.chmod(A[0], 0o600)`, dir+"/append")
}

// Each turns/<n> folder, its files and its fork/ carry the turn's own
// time, the "ts" of its last message, not the session's.
func TestTurnTimes(t *testing.T) {
	m := newMount(t)
	at := func(role, content, ts string) string {
		b, _ := json.Marshal(map[string]string{"role": role, "content": content, "ts": ts})
		return string(b)
	}
	newSession(t, m.Store, "s", "",
		at("user", "first question", "2021-03-01T10:00:00Z"),
		at("assistant", "first answer", "2021-03-01T10:05:00.5Z"),
		at("user", "second question", "2022-07-01T09:00:00Z"),
		at("assistant", "second answer", "2022-07-01T09:30:00Z"))
	run(t, "mkdir", m.P("s", "branches", "b"))
	want := map[string]string{"1": "2021-03-01T10:05:00Z", "2": "2022-07-01T09:30:00Z"}
	for _, turns := range []string{m.P("s", "turns"), m.P("s", "branches", "b", "turns")} {
		for n, ts := range want {
			wt, _ := time.Parse(time.RFC3339, ts)
			for _, p := range []string{"", "/transcript.md", "/messages.jsonl", "/fork"} {
				path := turns + "/" + n + p
				got, err := strconv.ParseInt(strings.TrimSpace(run(t, "stat", "-c", "%Y", path)), 10, 64)
				if err != nil || got != wt.Unix() {
					t.Errorf("%s: mtime %d (%v), want %d (%s)", path, got, err, wt.Unix(), ts)
				}
			}
		}
	}
}
