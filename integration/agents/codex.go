package agents

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Codex is a Runner for Codex against api (NewOpenAI): CODEX_HOME in the
// temporary home, with a config.toml whose model provider "standin" is
// the stand-in, on the Responses wire API, its key read from
// STANDIN_API_KEY.
func Codex(t testing.TB, api *Server) *Runner {
	t.Helper()
	r := newRunner(t, "codex")
	codexHome := filepath.Join(r.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "standin"

[model_providers.standin]
name = "standin"
base_url = "%s/v1"
wire_api = "responses"
env_key = "STANDIN_API_KEY"
# One try: a stand-in that does not answer as Codex expects must fail the
# run at once, not after minutes of retries.
request_max_retries = 0
stream_max_retries = 0
`, api.URL)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Env = []string{"CODEX_HOME=" + codexHome, "STANDIN_API_KEY=standin"}
	return r
}

// CodexHome is the CODEX_HOME of a Runner made by Codex.
func (r *Runner) CodexHome() string { return filepath.Join(r.Home, ".codex") }
