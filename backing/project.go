package backing

// ProjectOf names the project a session belongs to, for by-project/ and
// --project: "" when the session says nothing of where it ran.
func ProjectOf(m Meta) string {
	return m.Project // TODO(views): git remote, else cwd
}

// AgentOf names the agent that wrote a session: the format it was imported
// from (claude-code, codex, gemini), or "sessfs" for one made here.
func AgentOf(m Meta) string {
	return "sessfs" // TODO(views): meta's source format
}
