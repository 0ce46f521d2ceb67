package agents

import (
	"os"
	"path/filepath"
	"testing"
)

// geminiSettings selects the API-key auth (else Gemini CLI asks how to
// sign in), turns folder trust off (else an untrusted folder gets no
// tools) and stops the traffic that is not the API.
const geminiSettings = `{
  "security": {
    "auth": {"selectedType": "gemini-api-key"},
    "folderTrust": {"enabled": false}
  },
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`

// Gemini is a Runner for Gemini CLI against api (NewGemini): its URL as
// GOOGLE_GEMINI_BASE_URL, a dummy key, ~/.gemini/settings.json as above.
func Gemini(t testing.TB, api *Server) *Runner {
	t.Helper()
	r := newRunner(t, "gemini")
	dir := filepath.Join(r.Home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(geminiSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Env = []string{"GOOGLE_GEMINI_BASE_URL=" + api.URL, "GEMINI_API_KEY=standin"}
	return r
}
