package backing

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// Every price says when it was read and where, and is a price.
func TestPriceTable(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Prices() {
		if _, err := time.Parse(time.DateOnly, p.Date); err != nil {
			t.Errorf("%s: date %q: %v", p.Model, p.Date, err)
		}
		if !strings.HasPrefix(p.Source, "https://") {
			t.Errorf("%s: source %q is not a web page", p.Model, p.Source)
		}
		if p.Input <= 0 || p.Output <= 0 {
			t.Errorf("%s: input %v, output %v", p.Model, p.Input, p.Output)
		}
		for _, id := range append([]string{p.Model}, p.Aliases...) {
			if seen[id] {
				t.Errorf("%s listed twice", id)
			}
			seen[id] = true
			if snapshot.MatchString(id) {
				t.Errorf("%s: a dated id; list the model, dates match it", id)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("empty price table")
	}
}

func TestPriceOf(t *testing.T) {
	for model, want := range map[string]string{
		// the models of the real sessions in ../shared/data
		"claude-opus-4-5-20251101": "claude-opus-4-5",
		"claude-3-sonnet-20240229": "claude-3-sonnet",
		"claude-sonnet-4":          "claude-sonnet-4",
		"gpt-5.3-codex":            "gpt-5.3-codex",
		// aliases, providers' prefixes and snapshot dates
		"claude-sonnet-4-0":                  "claude-sonnet-4",
		"anthropic/claude-opus-4-5-20251101": "claude-opus-4-5",
		"claude-opus-4-5@20251101":           "claude-opus-4-5",
		"openai/gpt-5.3-codex":               "gpt-5.3-codex",
		"gpt-5-2025-08-07":                   "gpt-5",
		// never a shorter name's price
		"gpt-5.3-codex-spark":        "",
		"gpt-5.3":                    "",
		"claude-opus-4-7":            "",
		"claude-opus-4-5-2025":       "",
		"claude-opus-4-5-20251101-x": "",
		"gemini-3.1-pro-preview":     "",
		UnknownModel:                 "",
		"":                           "",
	} {
		p, ok := PriceOf(model)
		if ok != (want != "") || p.Model != want {
			t.Errorf("PriceOf(%q) = %q, %v; want %q", model, p.Model, ok, want)
		}
	}
}

func TestCost(t *testing.T) {
	million := Usage{Input: 1e6, Output: 1e6, CacheRead: 1e6, CacheWrite: 1e6, Reasoning: 1e6}
	if usd, ok := Cost("claude-opus-4-5-20251101", million); !ok || math.Abs(usd-(5+25+0.5+6.25)) > 1e-9 {
		t.Errorf("opus 4.5, a million of each: %v, %v", usd, ok)
	}
	// Reasoning is part of output: not billed again.
	if usd, ok := Cost("gpt-5.3-codex", Usage{Input: 2e6, CacheRead: 1e6, Output: 1e6, Reasoning: 5e5}); !ok || math.Abs(usd-(3.5+0.175+14)) > 1e-9 {
		t.Errorf("gpt-5.3-codex: %v, %v", usd, ok)
	}
	for _, c := range []struct {
		model string
		u     Usage
	}{
		{"gemini-3.1-pro-preview", Usage{Input: 1}},       // no price
		{"claude-3-sonnet-20240229", Usage{CacheRead: 1}}, // no cache price
		{"gpt-5.3-codex", Usage{Input: 1, CacheWrite: 1}}, // OpenAI bills no cache writes we know of
	} {
		if usd, ok := Cost(c.model, c.u); ok || usd != 0 {
			t.Errorf("Cost(%s, %+v) = %v, %v; want unknown", c.model, c.u, usd, ok)
		}
	}
	if usd, ok := Cost("claude-3-sonnet-20240229", Usage{Input: 1e6}); !ok || usd != 3 {
		t.Errorf("claude-3-sonnet without cache: %v, %v", usd, ok)
	}
	if usd, ok := Cost("no-such-model", Usage{}); !ok || usd != 0 {
		t.Errorf("nothing spent: %v, %v", usd, ok)
	}
	usd, ok := ModelUsage{"claude-sonnet-4": {Input: 1e6}, "gemini-3.1-pro-preview": {Input: 1e6}}.Cost()
	if ok || usd != 3 {
		t.Errorf("partly priced: %v, %v; want 3 and not known", usd, ok)
	}
}

// usage.json's bytes: its keys, null for an unknown cost, and the same
// bytes for the same usage.
func TestUsageDoc(t *testing.T) {
	m := ModelUsage{
		"claude-sonnet-4":        {Input: 1000, Output: 100, CacheRead: 10, CacheWrite: 1},
		"gemini-3.1-pro-preview": {Input: 20, Output: 8},
	}
	got, err := json.Marshal(NewUsageDoc(m))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"input":1020,"output":108,"cache_read":10,"cache_write":1,"reasoning":0,"total":1139,"cost_usd":null,"by_model":{` +
		`"claude-sonnet-4":{"input":1000,"output":100,"cache_read":10,"cache_write":1,"reasoning":0,"total":1111,"cost_usd":0.004507},` +
		`"gemini-3.1-pro-preview":{"input":20,"output":8,"cache_read":0,"cache_write":0,"reasoning":0,"total":28,"cost_usd":null}}}`
	if string(got) != want {
		t.Errorf("usage.json\n got %s\nwant %s", got, want)
	}
	empty, _ := json.Marshal(NewUsageDoc(ModelUsage{}))
	if string(empty) != `{"input":0,"output":0,"cache_read":0,"cache_write":0,"reasoning":0,"total":0,"cost_usd":0,"by_model":{}}` {
		t.Errorf("nothing spent: %s", empty)
	}
}
