package importer

import (
	"encoding/json"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// codexDecoder reads a Codex rollout (~/.codex/sessions/YYYY/MM/DD/
// rollout-*.jsonl): every line is {"timestamp","type","payload"}.
type codexDecoder struct {
	s Session
	// Title candidates: what the user typed as the UI recorded it (the
	// event_msg user_message; response items also hold the AGENTS.md and
	// environment preambles as user text), else the first user text.
	typed, firstUser string
	// pending are the user messages (indexes into s.Messages) whose text
	// does not say whether the human typed them; see userMessage.
	pending []int
	// typedFirst is set by a record of a typed prompt that came before
	// its message: the next pending message is that prompt.
	typedFirst bool
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
	m := members(line) // Decode checked it
	if m == nil {
		return d.s.addEvent(line)
	}
	if d.s.Created.IsZero() {
		d.s.Created = parseTime(m["timestamp"])
	}
	payload := members(m["payload"])
	switch str(m["type"]) {
	case "session_meta":
		d.sessionMeta(payload)
	case "turn_context":
		if model := str(payload["model"]); model != "" {
			d.s.Model = model // the last one: the model can change per turn
		}
	case "event_msg":
		if text, ok := typedPrompt(payload); ok {
			if d.typed == "" {
				d.typed = strings.TrimSpace(text)
			}
			d.promptTyped()
		}
	case "compacted":
		// A compaction: its summary becomes a visible marker.
		content := payload["message"]
		if backing.FirstByte(content) != '"' {
			content = json.RawMessage(`""`)
		}
		msg := message{role: json.RawMessage(`"system"`), content: content, ts: stringOrNil(m["timestamp"]), ofLine: true}
		raw, err := msg.buildScanned(line, true, d.s.lineCompact)
		if err != nil {
			return err
		}
		d.s.Messages = append(d.s.Messages, withContext(raw, ctxCompaction))
		return nil
	case "response_item":
		msg, ok := codexMessage(m["payload"], payload, m["timestamp"])
		if !ok {
			break
		}
		raw, err := msg.buildScanned(line, true, d.s.lineCompact)
		if err != nil {
			return err
		}
		switch role := str(msg.role); role {
		case "user":
			raw = d.userMessage(raw, msg)
		case "developer", "system":
			k := kindOf(backing.FirstText(msg.content), codexPrefixes)
			if k == "" {
				k = ctxInstructions
			}
			raw = withContext(raw, k)
		default:
			// The model answered: whatever user text came before it
			// unrecorded as typed was not.
			d.settle()
		}
		d.s.Messages = append(d.s.Messages, raw)
		return nil
	}
	return d.s.addEvent(line)
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
	msg := message{ts: stringOrNil(ts), ofLine: true} // Codex has no per-item id: the store makes one
	if t == "message" {
		// Roles are kept as Codex wrote them: developer stays developer.
		msg.role, msg.content = p["role"], p["content"]
		if k := backing.FirstByte(msg.content); str(msg.role) == "" || (k != '"' && k != '[') {
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

// userMessage marks a user response item. Its text tells injected context
// by how it begins (Codex's own list of prefixes). Other text is a prompt
// if Codex recorded the human typing it: a user_message event (an
// item_completed UserMessage since 0.16x) right after the item, or just
// before it. Until then it is pending, and settled by what follows.
func (d *codexDecoder) userMessage(raw []byte, msg message) []byte {
	text := backing.FirstText(msg.content)
	if k := kindOf(text, codexPrefixes); k != "" {
		return withContext(raw, k)
	}
	if d.typedFirst {
		d.typedFirst = false
		d.settle()
		d.prompt(text)
		return raw
	}
	d.pending = append(d.pending, len(d.s.Messages))
	return raw
}

// promptTyped handles the record of a typed prompt: the last pending user
// message is that prompt, and those before it were not typed.
func (d *codexDecoder) promptTyped() {
	if len(d.pending) == 0 {
		d.typedFirst = true
		return
	}
	last := d.pending[len(d.pending)-1]
	d.pending = d.pending[:len(d.pending)-1]
	d.settle()
	d.prompt(d.textOf(last))
}

// settle marks every pending user message as injected context: the model
// answered, or a later message was the typed prompt, with no record that
// the human typed it.
func (d *codexDecoder) settle() {
	for _, i := range d.pending {
		d.s.Messages[i] = withContext(d.s.Messages[i], ctxInjected)
	}
	d.pending = d.pending[:0]
}

// textOf is the text of message i, as stored.
func (d *codexDecoder) textOf(i int) string {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(d.s.Messages[i], &m)
	return backing.FirstText(m.Content)
}

func (d *codexDecoder) prompt(text string) {
	if d.firstUser == "" {
		d.firstUser = text
	}
}

// typedPrompt reads an event_msg payload that records a prompt the human
// typed, and its text.
func typedPrompt(p map[string]json.RawMessage) (string, bool) {
	switch str(p["type"]) {
	case "user_message":
		return str(p["message"]), true
	case "item_completed":
		item := fields(p["item"])
		if str(item["type"]) == "UserMessage" {
			return backing.FirstText(item["content"]), true
		}
	}
	return "", false
}

func (d *codexDecoder) session() *Session { return &d.s }

// final and dropped make it a streamer: a user message is final once
// settled, and so is every message after the first that is not.
func (d *codexDecoder) final() int {
	if len(d.pending) > 0 {
		return d.pending[0]
	}
	return len(d.s.Messages)
}

func (d *codexDecoder) dropped(k int) {
	for i := range d.pending {
		d.pending[i] -= k
	}
}

// finish leaves a user message still pending as a prompt: nothing after it
// said otherwise, and a source cut short (an agent still writing) ends
// this way right after its newest prompt.
func (d *codexDecoder) finish() *Session {
	if len(d.pending) > 0 {
		d.prompt(d.textOf(d.pending[0])) // the first is the title's, if any
	}
	d.pending = nil
	t := d.typed
	if t == "" {
		t = d.firstUser
	}
	d.s.Title = backing.TitleOf(t, backing.TitleMax)
	return &d.s
}
