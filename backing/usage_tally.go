package backing

import (
	"slices"
	"time"
)

// UnknownModel is the model of usage no message names a model for.
const UnknownModel = "(unknown)"

// Tally sums usage by model, counting each API response once: the one
// rule of it, shared by usage.json, sessfs usage and the index. Add the
// messages of one branch in order through a Stream, which carries the
// model in effect; several Streams (one a branch) may feed one Tally, so
// that a response seen in two branches still counts once.
type Tally struct {
	byKey   map[string]keyed
	byModel ModelUsage
}

// keyed is what a response's key has counted so far.
type keyed struct {
	model string
	u     Usage
}

// Spend is what one message added to a tally.
type Spend struct {
	Model string
	Usage Usage     // zero for a message that spent nothing, or a response already counted
	Time  time.Time // the message's "ts"; zero when it has none that parses
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{byKey: map[string]keyed{}, byModel: ModelUsage{}}
}

// Add counts u, spent by model, under key, and returns what it added. A
// key counted before adds only what u has more of, count by count: the
// lines of one response repeat its usage, and the earlier lines of a
// streamed response can carry counts the later ones raise, so a response
// counts its largest. The model is the key's first. An empty key is
// counted every time.
func (t *Tally) Add(u Usage, model, key string) Spend {
	if model == "" {
		model = UnknownModel
	}
	if key != "" {
		k, seen := t.byKey[key]
		if seen {
			grown := k.u.atLeast(u)
			u, model = grown.sub(k.u), k.model
			k.u = grown
		} else {
			k = keyed{model, u}
		}
		t.byKey[key] = k
	}
	if !u.IsZero() {
		t.byModel.Add(model, u)
	}
	return Spend{Model: model, Usage: u}
}

// Seed tells t that key counted u, spent by model, before it: what an
// index that keeps a tally's additions as rows restores, so that the lines
// of a response read later add only what they have more of.
func (t *Tally) Seed(key, model string, u Usage) {
	if key != "" {
		t.byKey[key] = keyed{model, u}
	}
}

// Seeded reports whether key is counted or seeded in t.
func (t *Tally) Seeded(key string) bool {
	_, ok := t.byKey[key]
	return ok
}

// Total is everything the tally counted.
func (t *Tally) Total() Usage { return t.byModel.Total() }

// ByModel is what the tally counted, by model: a copy.
func (t *Tally) ByModel() ModelUsage {
	out := make(ModelUsage, len(t.byModel))
	for m, u := range t.byModel {
		out[m] = u
	}
	return out
}

// Stream reads the messages of one branch, in order, into a tally. It
// keeps the model in effect: the last model a message named, which goes to
// the usage that names none after it (Codex's token counts follow the
// turn_context that names the model), or, before any, the fallback.
type Stream struct {
	t     *Tally
	model string
}

// Stream starts reading a branch into t; fallback is the model of usage
// that no earlier message named one for: the session's meta.json model.
func (t *Tally) Stream(fallback string) *Stream { return &Stream{t: t, model: fallback} }

// Model is the model in effect: what usage that names none is spent by.
func (s *Stream) Model() string { return s.model }

// Add counts one stored message and returns what it added.
func (s *Stream) Add(line []byte) Spend {
	f := readUsage(line)
	if f.model != "" {
		s.model = f.model
	}
	if f.u.IsZero() && f.key == "" {
		return Spend{Model: s.model}
	}
	sp := s.t.Add(f.u, s.model, f.key)
	if !sp.Usage.IsZero() && f.ts != "" {
		sp.Time, _ = time.Parse(time.RFC3339Nano, f.ts)
	}
	return sp
}

// ModelUsage is usage by model.
type ModelUsage map[string]Usage

// Add adds u to model's usage; m must not be nil.
func (m ModelUsage) Add(model string, u Usage) { m[model] = m[model].Add(u) }

// AddAll adds all of o to m.
func (m ModelUsage) AddAll(o ModelUsage) {
	for model, u := range o {
		m.Add(model, u)
	}
}

// Total is the usage of every model together.
func (m ModelUsage) Total() Usage {
	var t Usage
	for _, u := range m {
		t = t.Add(u)
	}
	return t
}

// Models lists the models, sorted, so that sums and documents come out
// the same every time.
func (m ModelUsage) Models() []string {
	out := make([]string, 0, len(m))
	for model := range m {
		out = append(out, model)
	}
	slices.Sort(out)
	return out
}

// Cost is what m cost in US dollars, by the price table (Cost), and
// whether that is all of it: known is false when a model that spent has
// no price, and usd is then the cost of the others alone.
func (m ModelUsage) Cost() (usd float64, known bool) {
	known = true
	for _, model := range m.Models() {
		c, ok := Cost(model, m[model])
		usd += c
		known = known && ok
	}
	return usd, known
}
