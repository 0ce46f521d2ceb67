package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/integration/realdata"

	"github.com/sessfs/sessfs/backing"
)

// The usage of each real session kept beside the repository, imported and read
// back through the store by `sessfs usage`, equals what the test works out
// from the agent's own file with its own rule: Claude Code's usage once
// per message.id, Codex's last running total (total_token_usage, in which
// input_tokens counts the cached ones).
func TestUsageOfRealSessions(t *testing.T) {
	_, files := dataFiles(t)
	s := newStore(t)
	var all backing.Usage
	wants := map[string]map[string]backing.Usage{} // session → model → usage
	defer func() { catalogUsage(t, s.dir, wants) }()
	// The Gemini sample's model (gemini-3.1-pro-preview) has no price in
	// the table (prices_test says so): its sessions cost nothing known.
	unpriced := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSpace(s.ok("import", f))
		var want map[string]backing.Usage
		switch realdata.Agent(f) {
		case "codex":
			want = codexOracle(t, f)
		case "gemini":
			want = geminiOracle(t, f)
			unpriced[name] = true
		default:
			want = claudeOracle(t, f)
		}
		wants[name] = want
		var r usageReport
		if err := json.Unmarshal([]byte(s.ok("usage", "--by", "session", "--json", name)), &r); err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 { // it spent nothing: no row
			if len(r.Rows) != 0 {
				t.Errorf("%s: rows %+v for a source with no usage", name, r.Rows)
			}
			continue
		}
		if len(r.Rows) != 1 || r.Rows[0].Key != name {
			t.Fatalf("%s: rows %+v", name, r.Rows)
		}
		got := map[string]backing.Usage{}
		for model, c := range r.Rows[0].ByModel {
			got[model] = c.Usage
			if c.CostUSD == nil && !unpriced[name] {
				t.Errorf("%s: %s has no cost", name, model)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s (%s):\n got %v\nwant %v", name, filepath.Base(f), got, want)
		}
		var sum backing.Usage
		for _, u := range want {
			sum = sum.Add(u)
		}
		if r.Total.Usage != sum {
			t.Errorf("%s: total %+v, want %+v", name, r.Total.Usage, sum)
		}
		all = all.Add(sum)
		t.Logf("%-40s %s", name, usageLine(sum))
	}
	// sessfs ls shows the same tokens, and a cost for each.
	var listed []struct {
		Name    string   `json:"name"`
		Tokens  int64    `json:"tokens"`
		CostUSD *float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal([]byte(s.ok("ls", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	for _, l := range listed {
		var sum backing.Usage
		for _, u := range wants[l.Name] {
			sum = sum.Add(u)
		}
		if l.Tokens != sum.Total() || (l.CostUSD == nil && !unpriced[l.Name] && sum.Total() > 0) {
			t.Errorf("ls --json %s: tokens %d, cost %v; want %d and a cost", l.Name, l.Tokens, l.CostUSD, sum.Total())
		}
	}
	var r usageReport
	if err := json.Unmarshal([]byte(s.ok("usage", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Total.Usage != all {
		t.Errorf("the whole store: %+v (cost %v), want %+v", r.Total.Usage, r.Total.CostUSD, all)
	}
	t.Logf("%-40s %s, cost %v", "all", usageLine(all), r.Total.CostUSD)
}

// catalogUsage checks that the search index's catalog counts what each
// session spent as the tally does: the same rule, kept incrementally.
func catalogUsage(t *testing.T, dir string, wants map[string]map[string]backing.Usage) {
	st, err := openStore(dir, true, false)
	if err != nil {
		t.Fatal(err)
	}
	// All: an imported session may be archived (a Gemini CLI --resume's
	// left-behind file is).
	entries, err := st.(backing.Finder).Catalog(backing.CatalogQuery{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		want, ok := wants[e.Name]
		if !ok {
			continue
		}
		delete(wants, e.Name)
		if fmt.Sprint(map[string]backing.Usage(e.ByModel)) != fmt.Sprint(want) {
			t.Errorf("catalog of %s:\n got %v\nwant %v", e.Name, e.ByModel, want)
		}
	}
	if len(wants) != 0 {
		t.Errorf("sessions missing from the catalog: %v", wants)
	}
}

func usageLine(u backing.Usage) string {
	return fmt.Sprintf("input %d output %d cache_read %d cache_write %d reasoning %d total %d",
		u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, u.Total())
}

// jsonLines decodes the JSON objects of a file, skipping lines that are
// not one (the edge-case samples have some).
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var obj map[string]any
		if json.Unmarshal(sc.Bytes(), &obj) == nil && obj != nil {
			out = append(out, obj)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func num(obj map[string]any, key string) int64 {
	f, _ := obj[key].(float64)
	return int64(f)
}

// claudeOracle: each message.id's usage once (the largest of each count
// its lines carry), by message.model.
func claudeOracle(t *testing.T, path string) map[string]backing.Usage {
	type resp struct {
		model string
		u     backing.Usage
	}
	byID := map[string]resp{}
	var order []string
	for _, line := range jsonLines(t, path) {
		msg, _ := line["message"].(map[string]any)
		usage, _ := msg["usage"].(map[string]any)
		if usage == nil {
			continue
		}
		id, _ := msg["id"].(string)
		model, _ := msg["model"].(string)
		u := backing.Usage{Input: num(usage, "input_tokens"), Output: num(usage, "output_tokens"),
			CacheWrite: num(usage, "cache_creation_input_tokens"), CacheRead: num(usage, "cache_read_input_tokens")}
		r, seen := byID[id]
		if !seen {
			order = append(order, id)
			r.model = model
		}
		r.u = backing.Usage{Input: max(r.u.Input, u.Input), Output: max(r.u.Output, u.Output),
			CacheWrite: max(r.u.CacheWrite, u.CacheWrite), CacheRead: max(r.u.CacheRead, u.CacheRead)}
		byID[id] = r
	}
	out := map[string]backing.Usage{}
	for _, id := range order {
		out[byID[id].model] = out[byID[id].model].Add(byID[id].u)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no usage in the source", path)
	}
	return out
}

// geminiOracle: each message id's "tokens" once (the last line of an id
// that Gemini CLI wrote again), by its "model": input less cached,
// cached as cache reads, thoughts counted in the output and as reasoning,
// tool-use prompt tokens as input. A source with no tokens (a file a
// --resume started and left without a reply) spent nothing.
func geminiOracle(t *testing.T, path string) map[string]backing.Usage {
	type rec struct {
		model string
		u     backing.Usage
	}
	byID := map[string]rec{}
	var order []string
	for _, line := range jsonLines(t, path) {
		tokens, _ := line["tokens"].(map[string]any)
		id, _ := line["id"].(string)
		if tokens == nil || id == "" {
			continue
		}
		model, _ := line["model"].(string)
		in, cached, thoughts := num(tokens, "input"), num(tokens, "cached"), num(tokens, "thoughts")
		if _, seen := byID[id]; !seen {
			order = append(order, id)
		}
		byID[id] = rec{model, backing.Usage{Input: in - cached + num(tokens, "tool"), CacheRead: cached,
			Output: num(tokens, "output") + thoughts, Reasoning: thoughts}}
	}
	out := map[string]backing.Usage{}
	for _, id := range order {
		out[byID[id].model] = out[byID[id].model].Add(byID[id].u)
	}
	return out
}

// codexOracle: the session's last running total, spent by the model of
// its turn_context lines (one model in these sessions).
func codexOracle(t *testing.T, path string) map[string]backing.Usage {
	var model string
	var total map[string]any
	for _, line := range jsonLines(t, path) {
		payload, _ := line["payload"].(map[string]any)
		switch {
		case line["type"] == "turn_context":
			if m, _ := payload["model"].(string); m != "" {
				if model != "" && m != model {
					t.Fatalf("%s: two models; the oracle knows one", path)
				}
				model = m
			}
		case line["type"] == "event_msg" && payload["type"] == "token_count":
			if info, _ := payload["info"].(map[string]any); info != nil {
				total, _ = info["total_token_usage"].(map[string]any)
			}
		}
	}
	if total == nil || model == "" {
		t.Fatalf("%s: no token count or no model", path)
	}
	cached := num(total, "cached_input_tokens")
	return map[string]backing.Usage{model: {Input: num(total, "input_tokens") - cached, CacheRead: cached,
		Output: num(total, "output_tokens"), Reasoning: num(total, "reasoning_output_tokens")}}
}

// The report: rows by day, a TOTAL line, costs where prices are known,
// --since and --until by day, --by model, and the sessions it leaves out.
func TestUsageReport(t *testing.T) {
	s := newStore(t)
	s.ok("new", "--model", "claude-sonnet-4", "a")
	s.ok("new", "b")
	s.ok("new", "gone")
	msg := func(id, ts, model string, in int64) string {
		return fmt.Sprintf(`{"id":%q,"ts":%q,"role":"assistant","content":"x","model":%q,"usage":{"input":%d,"output":1000000}}`+"\n", id, ts, model, in)
	}
	s.okStdin(msg("a1", "2026-03-01T12:00:00Z", "claude-sonnet-4", 1000000)+msg("a2", "2026-03-02T12:00:00Z", "claude-sonnet-4", 2000000), "append", "a", "-")
	// A reply without a model is the session's meta model's; b has none.
	s.okStdin(`{"id":"b1","ts":"2026-03-02T13:00:00Z","role":"assistant","content":"x","usage":{"input":5}}`+"\n", "append", "b", "-")
	s.okStdin(msg("g1", "2026-03-02T14:00:00Z", "claude-sonnet-4", 7), "append", "gone", "-")
	s.ok("rm", "gone")

	t.Setenv("TZ", "UTC") // days are local days; the test's are UTC's
	out := s.ok("usage")
	for _, want := range []string{
		"DAY             INPUT     OUTPUT  CACHE READ  CACHE WRITE  REASONING      TOTAL     COST\n",
		"2026-03-01  1,000,000  1,000,000",
		"$18.00\n",
		"TOTAL       3,000,005  2,000,000           0            0          0  5,000,005  $39.00*\n",
		"No price for (unknown): tokens counted, cost left out.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("usage table lacks %q:\n%s", want, out)
		}
	}

	var r usageReport
	json.Unmarshal([]byte(s.ok("usage", "--by", "model", "--json", "--since", "2026-03-02", "--until", "20260302")), &r)
	got := map[string]int64{}
	for _, row := range r.Rows {
		got[row.Key] = row.Input
	}
	if fmt.Sprint(got) != "map[(unknown):5 claude-sonnet-4:2000000]" || r.By != "model" || r.Total.CostUSD != nil {
		t.Errorf("--by model of 2 March: %v, by %q, cost %v", got, r.By, r.Total.CostUSD)
	}
	json.Unmarshal([]byte(s.ok("usage", "--json", "--until", "2026-03-01", "a")), &r)
	if len(r.Rows) != 1 || r.Rows[0].Key != "2026-03-01" || r.Total.CostUSD == nil || *r.Total.CostUSD != 18 {
		t.Errorf("a, until 1 March: %+v", r)
	}

	// A session the store cannot read is left out, saying so; the others
	// still count.
	s.ok("new", "broken")
	b, _ := s.session("broken", backing.StateActive)
	if err := os.WriteFile(filepath.Join(s.dir, "sessions", b.ID, "meta.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := s.run("usage", "--json"); r.code != exitFail || !strings.Contains(r.stderr, `session "broken" left out`) || !strings.Contains(r.stdout, `"input": 3000005`) {
		t.Errorf("a broken session: %v", r)
	}

	s.fails(exitUsage, `--by "week"`, "", "usage", "--by", "week")
	s.fails(exitUsage, "--since", "", "usage", "--since", "yesterday")
	s.fails(exitFail, "not found", "", "usage", "no-such-session")
	if !strings.Contains(s.ok("help"), "usage ") {
		t.Error("sessfs help does not list usage")
	}
}
