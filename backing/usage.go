package backing

// Usage is tokens an agent spent, as its API reported them.
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

// UsageOf reads the tokens one stored message reports, the model that
// spent them, and key, which names the API response they belong to ("" if
// none): the lines of one response carry its usage each, and count once.
func UsageOf(line []byte) (u Usage, model, key string) {
	return Usage{}, "", "" // TODO(usage): Claude Code, Codex, Gemini, appended usage
}
