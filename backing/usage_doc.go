package backing

import "math"

// UsageDoc is what usage.json holds, and each row of `sessfs usage
// --json`: the tokens of every model together, their cost, and the same
// by model. Its keys are an interface scripts read (the README documents
// them):
//
//	{"input":…,"output":…,"cache_read":…,"cache_write":…,"reasoning":…,
//	 "total":…,"cost_usd":… or null,"by_model":{"<model>":{…the same but by_model…}}}
//
// cost_usd is null when a model that spent has no price (see Cost); each
// model's own cost_usd is there when its price is known, so a script can
// still sum those.
type UsageDoc struct {
	UsageCounts
	ByModel map[string]UsageCounts `json:"by_model"`
}

// UsageCounts is Usage with its total and its cost.
type UsageCounts struct {
	Usage
	Total   int64    `json:"total"`
	CostUSD *float64 `json:"cost_usd"`
}

// NewUsageDoc makes the document of m. The same m makes the same bytes:
// costs are summed in model order and rounded to a millionth of a dollar,
// so the size a stat reports is the size a read returns.
func NewUsageDoc(m ModelUsage) UsageDoc {
	doc := UsageDoc{ByModel: make(map[string]UsageCounts, len(m))}
	for _, model := range m.Models() {
		usd, known := Cost(model, m[model])
		doc.ByModel[model] = countsOf(m[model], usd, known)
	}
	usd, known := m.Cost()
	doc.UsageCounts = countsOf(m.Total(), usd, known)
	return doc
}

func countsOf(u Usage, usd float64, known bool) UsageCounts {
	c := UsageCounts{Usage: u, Total: u.Total()}
	if known {
		usd = RoundUSD(usd)
		c.CostUSD = &usd
	}
	return c
}

// RoundUSD rounds a cost to a millionth of a dollar, as documents show it.
func RoundUSD(usd float64) float64 { return math.Round(usd*1e6) / 1e6 }
