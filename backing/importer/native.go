package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/sessfs/sessfs/backing"
)

// Native session files: a branch written as a new session of an agent
// (native_claude.go, native_codex.go), which the agent's own resume
// command continues. Where the session came from that same agent, each
// message's source line is written again with only its ids rewritten, so
// nothing of it is lost; messages added in sessfs, and those of another
// agent, are written from the stored content, through the neutral parts
// below. What the agent cannot read is counted in LeftOut, never dropped
// silently.

// NativeOptions says what the new session is.
type NativeOptions struct {
	ID  string    // the new session's id; "" makes a UUID v7
	Cwd string    // its working folder; "" keeps the session's
	Now time.Time // when it is written; the zero time is now
}

// Native is what WriteNative wrote.
type Native struct {
	Format  Format
	ID      string    // the new session's id
	Cwd     string    // the working folder its lines name
	Created time.Time // when it was written: Codex names its file for it
	LeftOut LeftOut
}

// LeftOut counts what a native file does not hold, by what it was
// ("reasoning items", "events"), for a message on stderr.
type LeftOut map[string]int

func (l LeftOut) add(what string) { l[what]++ }

// String is "3 reasoning items, 1 event" (sorted, so stable), or "".
func (l LeftOut) String() string {
	var parts []string
	for what, n := range l {
		if n == 1 {
			what = singular(what)
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, what))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// singular is what, a kind LeftOut counts, of one: its first word that
// ends in "s", the plural noun, without it ("thinking block", "event").
func singular(what string) string {
	words := strings.Split(what, " ")
	for i, w := range words {
		if strings.HasSuffix(w, "s") {
			words[i] = strings.TrimSuffix(w, "s")
			break
		}
	}
	return strings.Join(words, " ")
}

// NativeFormats are the formats WriteNative writes.
var NativeFormats = []Format{ClaudeCode, Codex}

// nativeWriter is one format's writer; run holds what they share.
type nativeWriter interface {
	// reuse writes a stored line of this same agent's source again, its
	// ids rewritten; event says it was stored as an event.
	reuse(line []byte, event bool) error
	// write writes one stored message from its parts; role is user,
	// assistant, tool or roleSummary.
	write(role string, parts []part, ts string) error
	// finish writes what must come even of an empty branch.
	finish() error
}

// roleSummary is the role write is given for a compaction's summary: text
// in the user's name that the user did not type.
const roleSummary = "summary"

// run is one WriteNative: the session's facts and the output.
type run struct {
	w       *bufio.Writer
	id, cwd string
	now     time.Time
	meta    backing.Meta
	origin  Origin // of the session written; Format "" when not imported
	left    LeftOut
}

// WriteNative writes branch branchID of s, ancestry resolved, to w as a
// new session file of format f (ClaudeCode or Codex).
func WriteNative(w io.Writer, f Format, s backing.Session, branchID string, o NativeOptions) (Native, error) {
	meta, err := s.Meta()
	if err != nil {
		return Native{}, err
	}
	r := &run{w: bufio.NewWriterSize(w, 64<<10), id: o.ID, cwd: o.Cwd, now: o.Now, meta: meta, left: LeftOut{}}
	r.origin, _ = OriginOf(meta)
	if r.id == "" {
		r.id = uuid.Must(uuid.NewV7()).String()
	}
	if r.cwd == "" {
		r.cwd = meta.Cwd
	}
	if r.now.IsZero() {
		r.now = time.Now()
	}
	var nw nativeWriter
	switch f {
	case ClaudeCode:
		nw = newClaudeWriter(r)
	case Codex:
		nw = newCodexWriter(r)
	default:
		return Native{}, fmt.Errorf("%w: cannot write %q sessions (only %s and %s)", ErrUnknownFormat, f, ClaudeCode, Codex)
	}
	v, err := s.ViewID(branchID)
	if err != nil {
		return Native{}, err
	}
	// A chunk at a time: memory does not grow with the session.
	const chunk = 256
	for from := 0; from < v.Len(); from += chunk {
		msgs, err := v.Read(from, min(from+chunk, v.Len()))
		if err != nil {
			return Native{}, err
		}
		for _, m := range msgs {
			if err := r.message(nw, f, m.Raw); err != nil {
				return Native{}, fmt.Errorf("message %d: %w", m.Index+1, err)
			}
		}
	}
	if err := nw.finish(); err != nil {
		return Native{}, err
	}
	if err := r.w.Flush(); err != nil {
		return Native{}, err
	}
	return Native{Format: f, ID: r.id, Cwd: r.cwd, Created: r.now, LeftOut: r.left}, nil
}

// storedMsg is what the writers read of a stored message.
type storedMsg struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Context    string          `json:"context"`
	TS         string          `json:"ts"`
	ToolCallID string          `json:"tool_call_id"` // an OpenAI chat tool message's
	ToolCalls  json.RawMessage `json:"tool_calls"`   // an OpenAI chat assistant message's
}

// message writes one stored message: its source line again when it came
// from this agent, else from its content. The rules of what is left out
// are here, once for both formats.
func (r *run) message(nw nativeWriter, f Format, raw []byte) error {
	var m storedMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if r.origin.Format == f {
		if line, err := SourceLine(raw); err == nil {
			return nw.reuse(line, m.Role == backing.EventRole)
		}
	}
	switch {
	case m.Role == backing.EventRole:
		// Another agent's bookkeeping (usage, UI events, snapshots).
		r.left.add("events")
		return nil
	case m.Context == ctxCompaction:
		// The summary is all that is left of what it replaced: kept, as
		// text in the user's name, where the agents put theirs, marked
		// as not typed (roleSummary).
		if t := backing.FirstText(m.Content); t != "" {
			return nw.write(roleSummary, []part{{kind: partText, text: t}}, m.TS)
		}
		return nil
	case m.Context != "":
		// Instructions, environment, hooks of the agent that wrote it:
		// the agent resuming sends its own.
		r.left.add("injected context messages")
		return nil
	}
	switch m.Role {
	case "user", "assistant", "tool":
	case "model": // Gemini's assistant
		m.Role = "assistant"
	default:
		// system and developer prompts: the agent has its own.
		r.left.add(m.Role + " messages")
		return nil
	}
	parts := r.parts(m)
	if len(parts) == 0 {
		return nil
	}
	return nw.write(m.Role, parts, m.TS)
}

// A part is one piece of a message both agents can hold: text, a tool
// call, a tool's result.
type part struct {
	kind   partKind
	text   string          // a text; a result's output
	id     string          // a call's id; the id of a result's call
	name   string          // a call's tool
	input  json.RawMessage // a call's arguments: a JSON object
	failed bool            // a result that is an error
}

type partKind int

const (
	partText partKind = iota
	partCall
	partResult
)

// parts reads a stored message's content in any shape render/shapes.go
// knows (Anthropic blocks, OpenAI items and chat messages, Gemini parts)
// as parts, counting in r.left what has no part.
func (r *run) parts(m storedMsg) []part {
	var out []part
	if s, ok := jsonString(m.Content); ok {
		if m.Role == "tool" {
			out = append(out, part{kind: partResult, id: m.ToolCallID, text: s})
		} else if strings.TrimSpace(s) != "" {
			out = append(out, part{kind: partText, text: s})
		}
	} else {
		var blocks []json.RawMessage
		json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			out = append(out, r.block(b)...)
		}
	}
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	json.Unmarshal(m.ToolCalls, &calls)
	for _, c := range calls {
		out = append(out, part{kind: partCall, id: c.ID, name: c.Function.Name, input: argumentsObject(c.Function.Arguments)})
	}
	return out
}

// block is one content block as parts: none when it cannot map.
func (r *run) block(raw json.RawMessage) []part {
	if s, ok := jsonString(raw); ok {
		return []part{{kind: partText, text: s}}
	}
	var b struct {
		Type             string          `json:"type"`
		Text             *string         `json:"text"`
		ID               string          `json:"id"`
		CallID           string          `json:"call_id"`
		ToolUseID        string          `json:"tool_use_id"`
		Name             string          `json:"name"`
		Input            json.RawMessage `json:"input"`
		Arguments        json.RawMessage `json:"arguments"`
		Action           json.RawMessage `json:"action"`
		Content          json.RawMessage `json:"content"`
		Output           json.RawMessage `json:"output"`
		IsError          bool            `json:"is_error"`
		Thought          bool            `json:"thought"`
		FunctionCall     json.RawMessage `json:"functionCall"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
	}
	if json.Unmarshal(raw, &b) != nil {
		r.left.add("unreadable blocks")
		return nil
	}
	switch b.Type {
	case "text", "input_text", "output_text":
		if b.Text != nil && strings.TrimSpace(*b.Text) != "" {
			return []part{{kind: partText, text: *b.Text}}
		}
		return nil
	case "thinking", "redacted_thinking":
		// Signed for one vendor's models: no other can take it.
		r.left.add("thinking blocks")
		return nil
	case "reasoning":
		r.left.add("reasoning items")
		return nil
	case "tool_use", "server_tool_use", "mcp_tool_use":
		return []part{{kind: partCall, id: b.ID, name: b.Name, input: argumentsObject(b.Input)}}
	case "function_call":
		return []part{{kind: partCall, id: b.CallID, name: b.Name, input: argumentsObject(b.Arguments)}}
	case "custom_tool_call":
		return []part{{kind: partCall, id: b.CallID, name: b.Name, input: argumentsObject(b.Input)}}
	case "local_shell_call":
		return []part{{kind: partCall, id: b.CallID, name: "local_shell", input: argumentsObject(b.Action)}}
	case "tool_result", "mcp_tool_result":
		return []part{{kind: partResult, id: b.ToolUseID, text: r.resultText(b.Content), failed: b.IsError}}
	case "function_call_output", "custom_tool_call_output":
		return []part{{kind: partResult, id: b.CallID, text: r.resultText(b.Output)}}
	case "image", "input_image", "image_url", "document", "input_file":
		r.left.add("image or file blocks")
		return nil
	case "":
		if p, ok := r.geminiPart(b.FunctionCall, b.FunctionResponse); ok {
			return []part{p}
		}
		if b.Text != nil && !b.Thought {
			return []part{{kind: partText, text: *b.Text}}
		}
		if b.Thought {
			r.left.add("thinking blocks")
			return nil
		}
	}
	r.left.add(blockNoun(b.Type))
	return nil
}

// blockNoun names blocks of an unknown type, for LeftOut.
func blockNoun(t string) string {
	if t == "" {
		return "blocks of no type"
	}
	return t + " blocks"
}

// geminiPart reads a Gemini functionCall or functionResponse part.
func (r *run) geminiPart(call, resp json.RawMessage) (part, bool) {
	var c struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	if json.Unmarshal(call, &c) == nil && c.Name != "" {
		return part{kind: partCall, id: c.ID, name: c.Name, input: argumentsObject(c.Args)}, true
	}
	var f struct {
		ID       string `json:"id"`
		Response struct {
			Output json.RawMessage `json:"output"`
			Error  json.RawMessage `json:"error"`
		} `json:"response"`
	}
	if json.Unmarshal(resp, &f) == nil && resp != nil {
		if f.Response.Error != nil {
			return part{kind: partResult, id: f.ID, text: r.resultText(f.Response.Error), failed: true}, true
		}
		return part{kind: partResult, id: f.ID, text: r.resultText(f.Response.Output)}, true
	}
	return part{}, false
}

// resultText is a tool's output as text: a string as it is, the texts of
// an array of content items joined, any other JSON as written.
func (r *run) resultText(out json.RawMessage) string {
	if s, ok := jsonString(out); ok {
		return s
	}
	var items []json.RawMessage
	if json.Unmarshal(out, &items) != nil {
		if k := backing.FirstByte(out); k == 0 || k == 'n' {
			return ""
		}
		return string(out)
	}
	var texts []string
	for _, it := range items {
		ps := r.block(it)
		for _, p := range ps {
			if p.kind == partText {
				texts = append(texts, p.text)
			}
		}
	}
	return strings.Join(texts, "\n")
}

// argumentsObject is a call's arguments as the JSON object Anthropic's
// tool_use wants: an object as it is; OpenAI's string of JSON unwrapped;
// any other string (a custom tool's patch) as {"input": s}.
func argumentsObject(raw json.RawMessage) json.RawMessage {
	if s, ok := jsonString(raw); ok {
		raw = json.RawMessage(s)
		if backing.FirstByte(raw) != '{' || !validJSON(raw) {
			obj, _ := marshalLine(map[string]string{"input": s})
			return obj
		}
	}
	if backing.FirstByte(raw) != '{' || !validJSON(raw) {
		return json.RawMessage(`{}`)
	}
	var b bytes.Buffer
	json.Compact(&b, raw)
	return b.Bytes()
}

// jsonString is the value of raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if backing.FirstByte(raw) != '"' {
		return "", false
	}
	if plainString(raw) { // most are: a decoder's call per field per line
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// plainString says whether raw is a JSON string that is its own value
// between its quotes: no escape, no control character, valid UTF-8 (which
// Unmarshal would change to U+FFFD).
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	in := raw[1 : len(raw)-1]
	ascii := true
	for _, c := range in {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	return ascii || utf8.Valid(in)
}

// marshalLine is v as one compact line of JSON, with <, > and & as they
// are (the agents write them so).
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeLine writes one line of the file.
func (r *run) writeLine(v any) error {
	line, err := marshalLine(v)
	if err != nil {
		return err
	}
	r.w.Write(line)
	return r.w.WriteByte('\n')
}

// timestamp is a line's time as the agents write it (milliseconds, UTC):
// the stored message's own, else when the file is written.
func (r *run) timestamp(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		t = r.now
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// callIDs gives calls without an id (some Gemini ones) one, and their
// results the id of the last such call, so that pairs stay pairs.
type callIDs struct {
	n    int
	last string
}

func (c *callIDs) fix(p *part, prefix string) {
	if p.id != "" {
		return
	}
	if p.kind == partCall {
		c.n++
		c.last = fmt.Sprintf("%ssessfs_%d", prefix, c.n)
	}
	p.id = c.last
}
