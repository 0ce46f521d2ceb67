// Package agents runs the real agent CLIs (Claude Code, Codex, Gemini CLI)
// offline, for tests that need what those programs really write and read.
//
// It owns two things:
//
//   - stand-ins for each vendor's streaming API (anthropic.go, openai.go,
//     gemini.go): an HTTP server on 127.0.0.1 that answers in that API's
//     real wire format with a fixed script (a prompt gets a shell tool
//     call, the tool's result gets a text answer) and records every request
//     it was sent, parsed into the history the agent sent (Call), so a
//     test can assert what an agent remembered on resume;
//   - running a CLI hermetically (cli.go): its own home in a temporary
//     folder, its API pointed at a stand-in, proxies pointed nowhere, a
//     timeout, its output captured. The CLIs are found under
//     $SESSFS_AGENTS/bin (default /opt/sessfs-agents, where .ci/agents
//     installs them at pinned versions), else on PATH. A missing CLI skips
//     the test, or fails it when SESSFS_REQUIRE_AGENTS=1 (set by CI).
//
// It is test support, imported by nothing the product builds. Its own
// tests (agents_test.go) are the smoke tests: each CLI runs a two-turn
// session against its stand-in, writes its native session file, and
// resumes it with turn 1's history. The round-trip tests
// (roundtrip_test.go) take the files those sessions leave through the
// sessfs command, built once in TestMain: import, show, export --format
// md and --format original, byte for byte; for Gemini CLI, across the
// two files a resume writes.
// resume_test.go continues sessions from the store in them with sessfs
// resume, a branch forked after turn 1, within one agent and across the
// two that can resume.
package agents
