package fsnode

import (
	"encoding/json"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// usageMsg is an assistant reply that spent in input and 1 output token.
func usageMsg(id, model string, in int64) []byte {
	return fmt.Appendf(nil, `{"id":%q,"role":"assistant","content":"a","model":%q,"usage":{"input":%d,"output":1}}`, id, model, in)
}

// catUsage reads a usage.json as cat does and checks that its size is the
// one stat reported.
func catUsage(t *testing.T, k *kernel, path string) backing.UsageDoc {
	t.Helper()
	a, errno := k.stat(path)
	if errno != 0 {
		t.Fatalf("stat %s: %v", path, errno)
	}
	data := k.catFile(path, 7) // small reads: offsets must line up
	if int(a.Size) != len(data) {
		t.Errorf("%s: stat says %d bytes, read %d", path, a.Size, len(data))
	}
	var doc backing.UsageDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return doc
}

// usage.json in a session, a branch and a turn folder: the session's sums
// every branch (a fork never lowers it), a branch's is its view, a
// turn's its messages; each follows appends, with its exact size.
func TestUsageFiles(t *testing.T) {
	st := newStore(t)
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID("", [][]byte{
		[]byte(`{"role":"user","content":"one"}`), usageMsg("a", "claude-sonnet-4", 1000000),
		[]byte(`{"role":"user","content":"two"}`), usageMsg("b", "claude-sonnet-4", 10),
	}); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, st, Options{})
	for _, dir := range []string{"s", "s/branches/main", "s/turns/1", "s/branches/main/turns/2"} {
		names, errno := k.readdir(dir)
		if errno != 0 || !slices.Contains(names, "usage.json") {
			t.Errorf("ls %s: %v, %v", dir, names, errno)
		}
	}
	doc := catUsage(t, k, "s/usage.json")
	if doc.Input != 1000010 || doc.Output != 2 || doc.Total != 1000012 || doc.CostUSD == nil || *doc.CostUSD != 3.00006 {
		t.Errorf("session: %+v (cost %v)", doc.UsageCounts, doc.CostUSD)
	}
	if m, ok := doc.ByModel["claude-sonnet-4"]; !ok || m.Input != 1000010 || len(doc.ByModel) != 1 {
		t.Errorf("session by model: %+v", doc.ByModel)
	}
	if doc := catUsage(t, k, "s/turns/1/usage.json"); doc.Input != 1000000 {
		t.Errorf("turn 1 input %d", doc.Input)
	}
	if doc := catUsage(t, k, "s/branches/main/turns/2/usage.json"); doc.Input != 10 {
		t.Errorf("turn 2 input %d", doc.Input)
	}

	// Fork after turn 1 and spend there, with a model of no known price.
	if errno := k.mkdir("s/turns/1/fork/x"); errno != 0 {
		t.Fatal(errno)
	}
	fork, err := s.Branch("x")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendID(fork.ID, [][]byte{usageMsg("c", "no-such-model", 100)}); err != nil {
		t.Fatal(err)
	}
	if doc := catUsage(t, k, "s/usage.json"); doc.Input != 1000110 || doc.CostUSD != nil || doc.ByModel["no-such-model"].CostUSD != nil || doc.ByModel["claude-sonnet-4"].CostUSD == nil {
		t.Errorf("session after the fork: %+v, by model %+v", doc.UsageCounts, doc.ByModel)
	}
	if doc := catUsage(t, k, "s/branches/x/usage.json"); doc.Input != 1000100 {
		t.Errorf("fork's view: input %d, want 1000100 (its inherited turn and its own)", doc.Input)
	}
	if doc := catUsage(t, k, "s/branches/main/usage.json"); doc.Input != 1000010 {
		t.Errorf("main after the fork: input %d", doc.Input)
	}

	// A later append shows at the next stat of a file already looked up.
	if err := s.AppendID("", [][]byte{usageMsg("d", "claude-sonnet-4", 5)}); err != nil {
		t.Fatal(err)
	}
	if doc := catUsage(t, k, "s/branches/main/usage.json"); doc.Input != 1000015 {
		t.Errorf("main after an append: input %d", doc.Input)
	}
	if doc := catUsage(t, k, "s/usage.json"); doc.Input != 1000115 {
		t.Errorf("session after an append: input %d", doc.Input)
	}

	for _, path := range []string{"s/usage.json", "s/branches/x/usage.json", "s/turns/2/usage.json"} {
		if _, errno := k.open(path, syscall.O_WRONLY); errno != syscall.EACCES {
			t.Errorf("open %s for writing: %v, want EACCES", path, errno)
		}
	}
}
