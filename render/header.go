package render

import (
	"strconv"
	"time"
)

// Header is what a transcript says about its session before the first
// message. Every field is optional; an empty one is left out.
type Header struct {
	Title        string    // the session's title (the caller falls back on its name)
	Agent        string    // the agent that wrote the session: "Claude Code", "Codex"
	AgentVersion string    // that agent's version: "2.1.3"
	Model        string    // the model it used
	Cwd          string    // the folder it worked in
	GitBranch    string    // the git branch checked out there
	Created      time.Time // when the session began
	LastActivity time.Time // its last message
	Branch       string    // the name of the sessfs branch shown
	// A fork: the branch it was forked from, and after which of that
	// branch's visible messages (1-based) and in which turn; 0 when not
	// known.
	ForkOf           string
	ForkAfterMessage int
	ForkAfterTurn    int
}

// title is the transcript's title in every format: a page or a heading
// with no words would look broken, so an empty one has a stand-in.
func (h Header) title() string {
	if h.Title == "" {
		return "Untitled session"
	}
	return h.Title
}

// headerField is one line of the header: what it is and its value, which
// each format shows in its own way (code for paths and names).
type headerField struct {
	name, value string
	code        bool   // the value is a path or a name, shown as code
	more        string // plain text after the value
}

// fields lists the header's lines in order, the empty ones left out. It is
// the one place that says what a header holds.
func (h Header) fields() []headerField {
	var fs []headerField
	add := func(name, value string, code bool) {
		if value != "" {
			fs = append(fs, headerField{name: name, value: value, code: code})
		}
	}
	agent := h.Agent
	if h.AgentVersion != "" {
		if agent == "" {
			agent = "version"
		}
		agent += " " + h.AgentVersion
	}
	add("agent", agent, false)
	add("model", h.Model, false)
	add("cwd", h.Cwd, true)
	add("git branch", h.GitBranch, true)
	add("created", headerTime(h.Created), false)
	add("last activity", headerTime(h.LastActivity), false)
	add("branch", h.Branch, true)
	if h.ForkOf != "" {
		var at string
		switch m, t := h.ForkAfterMessage, h.ForkAfterTurn; {
		case m > 0 && t > 0:
			at = " after message " + strconv.Itoa(m) + " (turn " + strconv.Itoa(t) + ")"
		case m > 0:
			at = " after message " + strconv.Itoa(m)
		case t > 0:
			at = " after turn " + strconv.Itoa(t)
		}
		fs = append(fs, headerField{name: "forked from", value: h.ForkOf, code: true, more: at})
	}
	return fs
}

// headerTime is a time in UTC to the minute, always 20 bytes (in years
// 1000 to 9999): the kernel caches a transcript's first page, so the
// header keeps its length as the last activity moves on.
func headerTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04") + " UTC"
}

// MarkdownHead is the start of transcript.md, before the first message's
// piece: the title as a level-1 heading, then one list item a field,
//
//	# Fix the login bug
//
//	- agent: Claude Code 2.1.3
//	- cwd: `/home/me/app`
//	- created: 2026-01-21 06:19 UTC
//	- branch: `try`
//	- forked from: `main` after message 12 (turn 3)
//
// ending with a blank line, as a piece does.
func MarkdownHead(h Header) []byte {
	s := "# " + escapeInline(h.title()) + "\n\n"
	for _, f := range h.fields() {
		v := escapeInline(f.value)
		if f.code {
			v = inlineCode(f.value)
		}
		s += "- " + f.name + ": " + v + f.more + "\n"
	}
	return finish(s)
}
