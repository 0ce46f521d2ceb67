package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// meta.json's "source" reads into one Origin and writes back with every
// field it had: the source's own (version, git, …) as they were, a known
// field of an unexpected type too, and the known ones as set.
func TestOriginRoundTrip(t *testing.T) {
	const in = `{"bytes":12,"complete":true,"forked_from_id":"p1","format":"codex","git":{"branch":"main"},` +
		`"id":"s1","path":"/a/rollout.jsonl","sha256":"ab","subagent":7,"version":null}`
	o, ok := OriginOf(backing.Meta{Extra: map[string]json.RawMessage{"source": json.RawMessage(in)}})
	if !ok {
		t.Fatalf("OriginOf(%s): not ok", in)
	}
	if o.Format != "codex" || o.ID != "s1" || o.Path != "/a/rollout.jsonl" || o.Forked != "p1" ||
		o.Bytes == nil || *o.Bytes != 12 || o.SHA256 != "ab" || !o.Complete || o.Subagent != "" {
		t.Errorf("OriginOf(%s) = %+v", in, o)
	}
	out, err := json.Marshal(o)
	if err != nil || string(out) != in {
		t.Errorf("written back as %s (%v), want %s", out, err, in)
	}

	// A re-import records what it imported, the rest as it was.
	data := []byte("grown data\n")
	o.imported(data)
	o.Complete = false
	out, _ = json.Marshal(o)
	sum := sha256.Sum256(data)
	want := strings.NewReplacer(`"bytes":12,"complete":true,`, `"bytes":11,`, `"sha256":"ab"`, `"sha256":"`+hex.EncodeToString(sum[:])+`"`).Replace(in)
	if string(out) != want || !o.holds(data) || o.holds(data[:10]) {
		t.Errorf("after a re-import: %s, want %s", out, want)
	}

	for _, raw := range []string{"", `"a string"`, `[1]`, `null`} {
		m := backing.Meta{}
		if raw != "" {
			m.Extra = map[string]json.RawMessage{"source": json.RawMessage(raw)}
		}
		if _, ok := OriginOf(m); ok {
			t.Errorf("OriginOf of source %q: ok", raw)
		}
	}
}
