package fsnode

import (
	"encoding/json"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/render"
)

// agentNames are the names people know the importers' formats by.
var agentNames = map[string]string{"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}

// TranscriptHeader is what transcript.md and transcript.html say of a
// branch before its messages: the session's title and origin (an import's
// record of its source in meta.json), the branch and, for a fork, where it
// left its parent. `sessfs export` and `sessfs show` use it too, so the
// files and the commands agree byte for byte. A missing or broken
// meta.json leaves out what it would say: the damage stays in meta.json,
// and the transcript still reads.
func TranscriptHeader(s backing.Session, v backing.View) render.Header {
	m, _ := s.Meta()
	h := render.Header{
		Title:        m.Title,
		Model:        m.Model,
		Cwd:          m.Cwd,
		Created:      m.Created,
		LastActivity: v.ModTime(),
		Branch:       v.Branch().Name,
	}
	if h.Title == "" {
		h.Title = m.Name
	}
	var src struct {
		Format     string `json:"format"`
		Version    string `json:"version"`     // Claude Code
		CLIVersion string `json:"cli_version"` // Codex
		Originator string `json:"originator"`  // Codex: which of its apps
		GitBranch  string `json:"gitBranch"`   // Claude Code
		Git        struct {
			Branch string `json:"branch"`
		} `json:"git"` // Codex
	}
	if raw := m.Extra["source"]; raw != nil && json.Unmarshal(raw, &src) == nil {
		h.Agent = agentNames[src.Format]
		if src.Originator != "" && src.Format == "codex" {
			h.Agent = src.Originator
		}
		h.AgentVersion = src.Version + src.CLIVersion
		h.GitBranch = src.GitBranch + src.Git.Branch
	}
	if b := v.Branch(); !b.IsDefault() {
		if p, err := s.BranchByID(b.Parent); err == nil {
			h.ForkOf = p.Name
		}
		if inh := v.Inherited(); inh > 0 {
			h.ForkAfterMessage = v.VisibleBefore(inh)
			h.ForkAfterTurn = v.TurnOf(inh - 1)
		}
	}
	return h
}
