package agents

import "testing"

// Claude is a Runner for Claude Code against api (NewAnthropic): the
// stand-in's URL as ANTHROPIC_BASE_URL, a dummy key, and the traffic that
// is not the API (telemetry, error reports, update checks) turned off.
func Claude(t testing.TB, api *Server) *Runner {
	t.Helper()
	r := newRunner(t, "claude")
	r.Env = []string{
		"ANTHROPIC_BASE_URL=" + api.URL,
		"ANTHROPIC_API_KEY=sk-ant-standin",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}
	return r
}
