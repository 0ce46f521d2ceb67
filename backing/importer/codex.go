package importer

import (
	"encoding/json"
	"strings"
)

// codexDecoder reads a Codex rollout (~/.codex/sessions/YYYY/MM/DD/
// rollout-*.jsonl): every line is {"timestamp","type","payload"}.
type codexDecoder struct {
	s Session
	// Title candidates: what the user typed as the UI recorded it (the
	// event_msg user_message; response items also hold the AGENTS.md and
	// environment preambles as user text), else the first user text.
	typed, firstUser string
}

func newCodexDecoder() *codexDecoder { return &codexDecoder{} }

// Roles of response items that are not a "message" and carry no role of
// their own. Each becomes a message whose content is the payload as its
// only block. The call kinds are the model's output, so assistant; their
// outputs are the tools' answers, so tool. local_shell_call and
// web_search_call are calls too: without them a shell call's output would
// stand alone in the transcript.
var codexBlockRoles = map[string]string{
	"reasoning":               "assistant",
	"function_call":           "assistant",
	"custom_tool_call":        "assistant",
	"local_shell_call":        "assistant",
	"web_search_call":         "assistant",
	"function_call_output":    "tool",
	"custom_tool_call_output": "tool",
}

// Session-level fields of session_meta kept in Session.Extra. The rest of
// the payload (id, cwd, model_provider, timestamp) has its own field, and
// base_instructions, the whole system prompt, stays in the event line.
var codexExtra = []string{"cli_version", "originator", "git", "source", "forked_from_id"}

func (d *codexDecoder) line(line []byte) error {
	m := fields(line)
	if m == nil {
		d.s.addEvent(line)
		return nil
	}
	if d.s.Created.IsZero() {
		d.s.Created = parseTime(m["timestamp"])
	}
	payload := fields(m["payload"])
	switch str(m["type"]) {
	case "session_meta":
		d.sessionMeta(payload)
	case "turn_context":
		if model := str(payload["model"]); model != "" {
			d.s.Model = model // the last one: the model can change per turn
		}
	case "event_msg":
		if d.typed == "" && str(payload["type"]) == "user_message" {
			d.typed = strings.TrimSpace(str(payload["message"]))
		}
	case "response_item":
		msg, ok := codexMessage(m["payload"], payload, m["timestamp"])
		if !ok {
			break
		}
		raw, err := msg.build(line)
		if err != nil {
			return err
		}
		d.s.Messages = append(d.s.Messages, raw)
		if d.firstUser == "" && str(msg.role) == "user" {
			if t := firstText(msg.content); !generated(t) {
				d.firstUser = t
			}
		}
		return nil
	}
	d.s.addEvent(line)
	return nil
}

// sessionMeta reads the first line of a rollout. A resumed or forked
// rollout may hold more than one; the first describes this session.
func (d *codexDecoder) sessionMeta(p map[string]json.RawMessage) {
	if d.s.SourceID != "" || p == nil {
		return
	}
	d.s.SourceID = str(p["id"])
	d.s.Cwd = str(p["cwd"])
	d.s.Provider = str(p["model_provider"])
	// The payload's timestamp is when the session started; the line's is
	// when the rollout was first written, seconds later.
	if t := parseTime(p["timestamp"]); !t.IsZero() {
		d.s.Created = t
	}
	for _, k := range codexExtra {
		if v := p[k]; v != nil && string(v) != "null" {
			d.s.setExtra(k, v)
		}
	}
}

// codexMessage says whether a response item is a message and, if so, its
// parts; raw is the payload as written, p the same decoded. Other items (ghost_snapshot, compaction markers, kinds newer than
// this code) are not, and stay events.
func codexMessage(raw json.RawMessage, p map[string]json.RawMessage, ts json.RawMessage) (message, bool) {
	t := str(p["type"])
	msg := message{ts: stringOrNil(ts)} // Codex has no per-item id: the store makes one
	if t == "message" {
		// Roles are kept as Codex wrote them: developer stays developer.
		msg.role, msg.content = p["role"], p["content"]
		if k := kind(msg.content); str(msg.role) == "" || (k != '"' && k != '[') {
			return message{}, false
		}
		return msg, true
	}
	role, ok := codexBlockRoles[t]
	if !ok {
		return message{}, false
	}
	msg.role = json.RawMessage(`"` + role + `"`)
	msg.content = blockArray(raw) // the bytes as written, key order and all
	return msg, true
}

func (d *codexDecoder) session() *Session { return &d.s }

func (d *codexDecoder) finish() *Session {
	t := d.typed
	if t == "" {
		t = d.firstUser
	}
	d.s.Title = cutTitle(t, titleMax)
	return &d.s
}
