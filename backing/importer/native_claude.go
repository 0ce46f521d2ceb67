package importer

import (
	"encoding/json"

	"github.com/google/uuid"
)

// claudeWriter writes a Claude Code session file: every line carries the
// new sessionId and a fresh uuid, and each line's parentUuid is the line
// before it, so that `claude --resume` finds one unbroken chain.
type claudeWriter struct {
	r       *run
	parent  string            // the uuid of the last line written, "" before the first
	uuids   map[string]string // a source line's uuid → the uuid it was written with
	version string            // Claude Code's version, of the source when it was Claude Code
	ids     callIDs

	// An API response Claude Code wrote one block a line keeps one
	// message.id; written messages of the assistant in a row share one
	// too, so that Claude Code sends them as one message, as the API wants.
	lastAssistant string // the message.id of the last line, if the assistant's
}

func newClaudeWriter(r *run) *claudeWriter {
	w := &claudeWriter{r: r, uuids: map[string]string{}, version: "sessfs"}
	if r.origin.Format == ClaudeCode {
		if v := str(r.meta.Extra["version"]); v != "" {
			w.version = v
		}
	}
	return w
}

// claudeOut is a message line as Claude Code writes it, in its order.
type claudeOut struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	UserType    string  `json:"userType"`
	Cwd         string  `json:"cwd"`
	SessionID   string  `json:"sessionId"`
	Version     string  `json:"version"`
	GitBranch   string  `json:"gitBranch"`
	Type        string  `json:"type"`
	Message     any     `json:"message"`
	// A compaction's summary, as Claude Code marks its own.
	IsCompactSummary bool   `json:"isCompactSummary,omitempty"`
	UUID             string `json:"uuid"`
	Timestamp        string `json:"timestamp"`
}

// claudeRefs are the fields of a Claude Code line that name another
// line's uuid besides parentUuid, rewritten by the same map.
var claudeRefs = []string{"logicalParentUuid", "sourceToolAssistantUUID", "leafUuid"}

// reuse writes a source line again with the new session's ids. Events
// (snapshots, queue operations, titles, progress) are Claude Code's
// bookkeeping about the old session's ids and files: left out.
func (w *claudeWriter) reuse(line []byte, event bool) error {
	if event {
		w.r.left.add("events")
		return nil
	}
	m := fields(line)
	if m == nil {
		w.r.left.add("events")
		return nil
	}
	id := w.newUUID()
	if old := str(m["uuid"]); old != "" {
		w.uuids[old] = id
	}
	for _, k := range claudeRefs {
		if m[k] == nil {
			continue
		}
		if to, ok := w.uuids[str(m[k])]; ok {
			m[k] = quote(to)
		} else {
			delete(m, k) // a line this file does not hold
		}
	}
	m["uuid"] = quote(id)
	m["parentUuid"] = w.parentRaw()
	m["sessionId"] = quote(w.r.id)
	// A subagent's branch resumed is the main conversation of the new
	// session; Claude Code leaves sidechain lines out of it.
	m["isSidechain"] = json.RawMessage("false")
	if w.r.cwd != "" {
		m["cwd"] = quote(w.r.cwd)
	}
	w.lastAssistant = ""
	if str(m["type"]) == "assistant" {
		w.lastAssistant = str(fields(m["message"])["id"])
	}
	w.parent = id
	return w.r.writeLine(m)
}

// write writes a message from its parts: one user line (tool results
// first, as the API wants them) or one assistant line.
func (w *claudeWriter) write(role string, parts []part, ts string) error {
	var blocks []any
	for i := range parts {
		p := &parts[i]
		w.ids.fix(p, "toolu_")
		switch {
		case p.kind == partText:
			blocks = append(blocks, claudeText{"text", p.text})
		case p.kind == partCall && role == "assistant":
			blocks = append(blocks, claudeToolUse{"tool_use", p.id, p.name, p.input})
		case p.kind == partResult && role != "assistant":
			// Results first: the API wants them at the start of the
			// user's message that follows the call.
			blocks = append([]any{claudeToolResult{"tool_result", p.id, p.text, p.failed}}, blocks...)
		default:
			w.r.left.add("tool blocks on the wrong side") // a call in a user's message, a result in the assistant's
		}
	}
	if len(blocks) == 0 {
		return nil
	}
	line := claudeOut{
		ParentUUID: nil, UserType: "external", Cwd: w.r.cwd, SessionID: w.r.id,
		Version: w.version, Type: "user", UUID: w.newUUID(), Timestamp: w.r.timestamp(ts),
	}
	if w.parent != "" {
		p := w.parent
		line.ParentUUID = &p
	}
	if role == "assistant" {
		if w.lastAssistant == "" {
			w.lastAssistant = "msg_sessfs_" + w.newUUID()
		}
		line.Type = "assistant"
		line.Message = claudeAssistantMsg{ID: w.lastAssistant, Type: "message", Role: "assistant",
			Model: w.model(), Content: blocks, Usage: map[string]int{"input_tokens": 0, "output_tokens": 0}}
	} else {
		w.lastAssistant = ""
		var content any = blocks
		if t, ok := blocks[0].(claudeText); ok && len(blocks) == 1 {
			content = t.Text // a typed prompt, as Claude Code writes one
		}
		line.Message = claudeUserMsg{Role: "user", Content: content}
		line.IsCompactSummary = role == roleSummary
	}
	w.parent = line.UUID
	return w.r.writeLine(line)
}

// The Messages API's shapes, their keys in the order Claude Code writes them.
type (
	claudeUserMsg struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}
	claudeAssistantMsg struct {
		ID           string         `json:"id"`
		Type         string         `json:"type"`
		Role         string         `json:"role"`
		Model        string         `json:"model"`
		Content      []any          `json:"content"`
		StopReason   *string        `json:"stop_reason"`
		StopSequence *string        `json:"stop_sequence"`
		Usage        map[string]int `json:"usage"`
	}
	claudeText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	claudeToolUse struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	claudeToolResult struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error,omitempty"`
	}
)

func (w *claudeWriter) finish() error { return nil }

// model is the model the session records: the one that wrote what is
// written here, whichever vendor's.
func (w *claudeWriter) model() string {
	if w.r.meta.Model != "" {
		return w.r.meta.Model
	}
	return "unknown"
}

func (w *claudeWriter) newUUID() string { return uuid.Must(uuid.NewV7()).String() }

func (w *claudeWriter) parentRaw() json.RawMessage {
	if w.parent == "" {
		return json.RawMessage("null")
	}
	return quote(w.parent)
}

// quote is s as a JSON string.
func quote(s string) json.RawMessage {
	b, _ := marshalLine(s)
	return b
}
