package importer

import (
	"encoding/json"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// claudeDecoder reads a Claude Code session file (~/.claude/projects/<dir>/
// <sessionId>.jsonl): one JSON object a line, its kind in "type".
type claudeDecoder struct {
	s Session
	// Title candidates, in the order Claude Code's resume picker prefers
	// them: the user's own /rename, then the generated title, then the
	// summary, then what the user first typed. Within a kind the last wins.
	custom, ai, summary, firstUser string
	// lastResponse is message.id of the last message line when it was an
	// assistant's: a next line with the same id continues that response.
	lastResponse string
	// ids are the uuids already given to a message as its "id" (as
	// nodeOf keys them: a big session has a million).
	ids map[nodeID]bool
	// node is the last line's place in the tree (lastNode).
	node treeNode
}

func newClaudeDecoder() *claudeDecoder {
	// Claude Code talks to Anthropic's models whichever cloud serves them.
	return &claudeDecoder{s: Session{Provider: "anthropic"}}
}

func (d *claudeDecoder) line(line []byte) error {
	m := members(line) // Decode checked it
	if m == nil {      // valid JSON but not an object: nothing to read, keep it
		d.node = nodeOfLine(nil, false)
		return d.s.addEvent(line)
	}
	d.meta(m)
	msg, inner, ok := claudeMessage(m)
	if !ok {
		d.node = nodeOfLine(m, false)
		return d.s.addEvent(line)
	}
	response := ""
	if str(m["type"]) == "assistant" {
		response = str(inner["id"])
	}
	msg.continues = response != "" && response == d.lastResponse
	d.lastResponse = response
	// The store takes a message whose id it already has for a retry and
	// keeps the first; a uuid Claude Code wrote twice must not lose the
	// second line, so only the first carries it as "id" (both keep it in
	// "source").
	if id := str(msg.id); id != "" {
		if k := nodeOf(id); d.ids[k] {
			msg.id = nil
		} else {
			if d.ids == nil {
				d.ids = map[nodeID]bool{}
			}
			d.ids[k] = true
		}
	}
	raw, err := msg.buildScanned(line, true, d.s.lineCompact)
	if err != nil {
		return err
	}
	context := claudeContext(m, msg)
	raw = withContext(raw, context)
	d.node = nodeOfLine(m, backing.KindOfParts(backing.StringOf(msg.role), msg.content, context != "").Prompt)
	d.s.Messages = append(d.s.Messages, raw)
	if str(m["type"]) == "assistant" {
		// "<synthetic>" marks messages Claude Code made up itself (errors,
		// interruptions); they say nothing about the model in use.
		if model := str(inner["model"]); model != "" && model != "<synthetic>" {
			d.s.Model = model // the last one: a session can switch models
		}
	}
	if d.firstUser == "" && str(msg.role) == "user" && context == "" &&
		string(m["isSidechain"]) != "true" {
		if t := backing.FirstText(msg.content); t != "" && !generated(t) {
			d.firstUser = t
		}
	}
	return nil
}

// meta takes the session's fields from any line that has them: the first
// sessionId, cwd, timestamp, version and git branch, and the title lines.
func (d *claudeDecoder) meta(m map[string]json.RawMessage) {
	if d.s.SourceID == "" {
		d.s.SourceID = str(m["sessionId"])
	}
	if d.s.Cwd == "" {
		d.s.Cwd = str(m["cwd"])
	}
	if d.s.Slug == "" {
		d.s.Slug = str(m["slug"])
	}
	if d.s.Created.IsZero() {
		d.s.Created = parseTime(m["timestamp"])
	}
	if d.s.Extra["version"] == nil {
		d.s.setExtra("version", stringOrNil(m["version"]))
	}
	if d.s.Extra["gitBranch"] == nil && str(m["gitBranch"]) != "" {
		d.s.setExtra("gitBranch", m["gitBranch"])
	}
	switch str(m["type"]) {
	case "custom-title":
		setIf(&d.custom, str(m["customTitle"]))
	case "ai-title":
		setIf(&d.ai, str(m["aiTitle"]))
	case "summary":
		setIf(&d.summary, str(m["summary"]))
	}
}

func setIf(dst *string, v string) {
	if strings.TrimSpace(v) != "" {
		*dst = v
	}
}

// claudeMessage says whether a line is a message and, if so, its parts and
// its inner API message. User and assistant lines carry the API message in
// "message"; system lines carry their text in a top-level "content". A line
// of such a type whose content is neither a string nor an array (seen in
// the wild: "message":"error", a misspelt "content") cannot be a store
// message and stays an event.
func claudeMessage(m map[string]json.RawMessage) (message, map[string]json.RawMessage, bool) {
	t := str(m["type"])
	if t != "user" && t != "assistant" && t != "system" {
		return message{}, nil, false
	}
	var role, content json.RawMessage
	inner := members(m["message"])
	if inner != nil {
		role, content = inner["role"], inner["content"]
	} else if t == "system" {
		content = m["content"]
	}
	if k := backing.FirstByte(content); k != '"' && k != '[' {
		return message{}, nil, false
	}
	if str(role) == "" {
		role = json.RawMessage(`"` + t + `"`) // t is one of three plain words
	}
	return message{
		id:      stringOrNil(m["uuid"]),
		role:    role,
		content: content,
		ts:      stringOrNil(m["timestamp"]),
		ofLine:  true,
	}, inner, true
}

// claudeContext says what kind of injected context a message line is, or
// "" for the human's own words and the model's. Claude Code marks most of
// what it injects with isMeta (hook feedback, a skill's expanded prompt);
// its command wrappers, caveats and interruption notes are told by how
// they begin, and its system lines by their subtype.
func claudeContext(m map[string]json.RawMessage, msg message) string {
	if string(m["isCompactSummary"]) == "true" {
		return ctxCompaction
	}
	if str(m["type"]) == "system" {
		switch str(m["subtype"]) {
		case "compact_boundary", "microcompact_boundary":
			return ctxCompaction
		case "local_command":
			return ctxCommand
		case "stop_hook_summary":
			return ctxHook
		}
		return ctxSystem
	}
	if str(msg.role) != "user" {
		return ""
	}
	text := backing.FirstText(msg.content)
	if k := kindOf(text, claudePrefixes); k != "" {
		return k
	}
	if string(m["isMeta"]) == "true" {
		first, _, _ := strings.Cut(text, "\n")
		if strings.Contains(strings.ToLower(first), "hook") {
			return ctxHook
		}
		return ctxMeta
	}
	return ""
}

func (d *claudeDecoder) session() *Session { return &d.s }

// lastNode makes it a noder.
func (d *claudeDecoder) lastNode() treeNode { return d.node }

// final and dropped make it a streamer: a message is final once made.
func (d *claudeDecoder) final() int  { return len(d.s.Messages) }
func (d *claudeDecoder) dropped(int) {}

func (d *claudeDecoder) finish() *Session {
	for _, t := range []string{d.custom, d.ai, d.summary} {
		if t != "" { // kept whole, only made one line
			d.s.Title = strings.Join(strings.Fields(t), " ")
			return &d.s
		}
	}
	d.s.Title = backing.TitleOf(d.firstUser, backing.TitleMax)
	return &d.s
}
