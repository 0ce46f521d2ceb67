package backing

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// prices.json is the price table: list prices, per model, each with the
// day it was read and where. It is data, not code, so that a price change
// is a one-line diff a reviewer checks against its source.
//
//go:embed prices.json
var pricesJSON []byte

// Price is one model's list price in US dollars per million tokens. A
// nil CacheRead or CacheWrite is a kind of token the table has no price
// for: usage with none of it is priced, usage with some is not.
type Price struct {
	Model      string   `json:"model"`
	Aliases    []string `json:"aliases,omitempty"`
	Input      float64  `json:"input"`
	Output     float64  `json:"output"`
	CacheRead  *float64 `json:"cache_read"`
	CacheWrite *float64 `json:"cache_write"`
	Date       string   `json:"date"`   // when it was read from Source, YYYY-MM-DD
	Source     string   `json:"source"` // the provider's page that says it
}

// Prices is the price table, in the order of prices.json.
func Prices() []Price { return priceTable().list }

type prices struct {
	list []Price
	byID map[string]Price // model ids and aliases
}

// priceTable parses prices.json once. It is part of the build, so a table
// that does not parse is a bug its test catches, not a user's error.
var priceTable = sync.OnceValue(func() prices {
	var doc struct{ Models []Price }
	if err := json.Unmarshal(pricesJSON, &doc); err != nil {
		panic("backing: prices.json: " + err.Error())
	}
	t := prices{list: doc.Models, byID: map[string]Price{}}
	for _, p := range doc.Models {
		for _, id := range append([]string{p.Model}, p.Aliases...) {
			t.byID[id] = p
		}
	}
	return t
})

// snapshot is the date a provider puts at the end of a model id to name
// one snapshot of it: claude-opus-4-5-20251101, gpt-5-2025-08-07, and
// Vertex AI's claude-opus-4-5@20251101.
var snapshot = regexp.MustCompile(`(-[0-9]{8}|-[0-9]{4}-[0-9]{2}-[0-9]{2}|@[0-9]{8})$`)

// PriceOf finds a model's price: by its id or an alias exactly, else
// without a provider's prefix ("anthropic/", "openai/"), else without a
// snapshot date; never by a shorter name, so gpt-5.3-codex is not priced
// as gpt-5 nor claude-opus-4-5 as claude-opus-4.
func PriceOf(model string) (Price, bool) {
	t := priceTable()
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		if p, ok := t.byID[model]; ok {
			return p, true
		}
		model = model[i+1:]
	}
	if p, ok := t.byID[model]; ok {
		return p, true
	}
	if loc := snapshot.FindStringIndex(model); loc != nil {
		p, ok := t.byID[model[:loc[0]]]
		return p, ok
	}
	return Price{}, false
}

// Cost is what u cost on model at its list price, in US dollars; known is
// false when the table has no price for the model or for a kind of token
// u has, and usd is then 0: never a guess. Usage of nothing costs 0,
// known. The price is the base tier: batch discounts, Anthropic's 1-hour
// cache writes and long-context surcharges are not told apart in Usage.
func Cost(model string, u Usage) (usd float64, known bool) {
	if u.IsZero() {
		return 0, true
	}
	p, ok := PriceOf(model)
	if !ok {
		return 0, false
	}
	usd = float64(u.Input)*p.Input + float64(u.Output)*p.Output
	for _, c := range []struct {
		n     int64
		price *float64
	}{{u.CacheRead, p.CacheRead}, {u.CacheWrite, p.CacheWrite}} {
		if c.n == 0 {
			continue
		}
		if c.price == nil {
			return 0, false
		}
		usd += float64(c.n) * *c.price
	}
	return usd / 1e6, true
}
