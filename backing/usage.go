package backing

// Usage is tokens an agent spent, as its API reported them, in one
// accounting for every agent so that sums mean the same whatever wrote
// them:
//
//   - Input: input tokens billed at the plain input price, neither read
//     from the prompt cache nor written to it.
//   - CacheRead: input tokens read from the prompt cache.
//   - CacheWrite: input tokens written to the prompt cache (Anthropic
//     bills them apart, above the input price).
//   - Output: every token the model wrote, reasoning included: all of it
//     is billed at the output price.
//   - Reasoning: how many of Output were reasoning (thinking). A part of
//     Output, never added to it; 0 where the API does not say (Anthropic).
//
// OpenAI and Gemini count cached tokens inside their input count; UsageOf
// takes them out into CacheRead, so that no token is counted twice and
// Input, CacheRead and CacheWrite add up to the whole prompt.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Reasoning  int64 `json:"reasoning"`
}

// Add is u and v together.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.Input + v.Input, u.Output + v.Output, u.CacheRead + v.CacheRead,
		u.CacheWrite + v.CacheWrite, u.Reasoning + v.Reasoning}
}

// Total is every token the requests moved: the prompt (plain, read from
// and written to the cache) and the output. Reasoning is in Output
// already.
func (u Usage) Total() int64 { return u.Input + u.CacheRead + u.CacheWrite + u.Output }

// IsZero reports whether u counts nothing.
func (u Usage) IsZero() bool { return u == Usage{} }

// atLeast is the larger of each count of u and v: one response's usage
// told more than once (see Tally.Add).
func (u Usage) atLeast(v Usage) Usage {
	return Usage{max(u.Input, v.Input), max(u.Output, v.Output), max(u.CacheRead, v.CacheRead),
		max(u.CacheWrite, v.CacheWrite), max(u.Reasoning, v.Reasoning)}
}

func (u Usage) sub(v Usage) Usage {
	return Usage{u.Input - v.Input, u.Output - v.Output, u.CacheRead - v.CacheRead,
		u.CacheWrite - v.CacheWrite, u.Reasoning - v.Reasoning}
}

// UsageOf reads the tokens one stored message reports, the model that
// spent them, and key, which names the API response they belong to ("" if
// none): the lines of one response carry its usage each, and count once.
// A message that names a model and spends nothing, as Codex's turn_context
// does, returns that model with zero usage and no key: the model in effect
// for the messages after it (see Stream). The shapes it reads are in
// usage_shapes.go; anything else spends nothing.
func UsageOf(line []byte) (u Usage, model, key string) {
	f := readUsage(line)
	return f.u, f.model, f.key
}
