package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// geminiDecoder reads a Gemini CLI session (~/.gemini/tmp/<project>/chats/
// session-*.jsonl, since 0.6x): a metadata line (sessionId, projectHash,
// startTime, kind), message lines ({"id","timestamp","type","content",…},
// type user, gemini, info, error or warning) and {"$set":{…}} lines that
// rewrite fields of the session. Gemini CLI writes a message again, whole,
// each time it updates it (the same "id": its tool calls recorded, its
// text grown), and a $set may replace the messages array (the session's
// first context, a resume's restored history).
//
// Each line becomes one message or one event, as everywhere here:
//   - the metadata line and $set lines are events: they restate the
//     session, and showing a restored history would show every reply twice;
//   - a message line whose id is new is a message with that id;
//   - a message line that repeats an id is a message of only what it adds
//     to what the earlier lines of that id showed (a tool call, new text),
//     "continues" when it follows that message, with no id (the store takes
//     a repeated id for a retry); one that adds nothing is an event;
//   - info, error and warning lines (the CLI's notes to the user) are events.
//
// Store content is Gemini API parts: {"text"}, {"thought":true,"text"},
// {"functionCall":{"id","name","args"}}, {"functionResponse":{…}}. A
// user line made of function responses only is a tool message.
type geminiDecoder struct {
	s Session
	// shown is, by message id, what the lines of that id showed so far.
	shown map[string]*geminiShown
	// last is the id of the message the last message line belongs to.
	last string
	// projectHash is the metadata's: the SHA-256 of the project's root,
	// which confirms the cwd read from the session context.
	projectHash string
	firstPrompt string
}

type geminiShown struct {
	text     json.RawMessage // the content last shown
	thoughts int             // how many thoughts were shown
	calls    map[string]bool // ids of the tool calls shown
}

func newGeminiDecoder() *geminiDecoder { return &geminiDecoder{shown: map[string]*geminiShown{}} }

// geminiRecord is the part of a message record the decoder reads; every
// value stays raw, so a line of unexpected shape is an event, never an
// error.
type geminiRecord struct {
	ID        json.RawMessage   `json:"id"`
	Timestamp json.RawMessage   `json:"timestamp"`
	Type      json.RawMessage   `json:"type"`
	Content   json.RawMessage   `json:"content"`
	ToolCalls []json.RawMessage `json:"toolCalls"`
	Thoughts  []json.RawMessage `json:"thoughts"`
	Model     json.RawMessage   `json:"model"`
}

func (d *geminiDecoder) line(line []byte) error {
	m := fields(line)
	switch {
	case m == nil:
	case m["$set"] != nil:
		d.set(fields(m["$set"]))
	case m["type"] != nil && m["id"] != nil:
		msg, ok, err := d.record(line, nil)
		if err != nil {
			return err
		}
		if ok {
			d.s.Messages = append(d.s.Messages, msg)
			return nil
		}
	default:
		d.metadata(m)
	}
	return d.s.addEvent(line)
}

// metadata reads the session's first line. A $set may repeat the id.
func (d *geminiDecoder) metadata(m map[string]json.RawMessage) {
	if d.s.SourceID == "" {
		d.s.SourceID = str(m["sessionId"])
	}
	if d.s.Created.IsZero() {
		d.s.Created = parseTime(m["startTime"])
	}
	if h := str(m["projectHash"]); h != "" && d.projectHash == "" {
		d.projectHash = h
		d.s.setExtra("projectHash", m["projectHash"])
	}
	if k := m["kind"]; backing.FirstByte(k) == '"' {
		d.s.setExtra("kind", k)
	}
}

// set reads a $set: the session fields it names, and the cwd from the
// session context its messages may hold (the first $set does).
func (d *geminiDecoder) set(m map[string]json.RawMessage) {
	if m == nil {
		return
	}
	d.metadata(m)
	var msgs []geminiRecord
	json.Unmarshal(m["messages"], &msgs)
	for _, r := range msgs {
		if d.s.Cwd == "" && str(r.Type) == "user" {
			d.s.Cwd = d.workspace(geminiText(r.Content))
		}
	}
}

// workspace is the first workspace directory the session context names,
// if its SHA-256 is the projectHash: Gemini CLI keeps no cwd of its own,
// and a directory the hash confirms is the project's root.
func (d *geminiDecoder) workspace(text string) string {
	_, after, ok := strings.Cut(text, "**Workspace Directories:**\n")
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(after, "\n")
	dir := strings.TrimPrefix(strings.TrimSpace(line), "- ")
	sum := sha256.Sum256([]byte(dir))
	if d.projectHash == "" || hex.EncodeToString(sum[:]) != d.projectHash {
		return ""
	}
	return dir
}

// record makes the message of a message line, or says it is an event.
// whole is the bytes the file holds for it when they are more than line
// (a document's part, see gemini_json.go), else nil.
func (d *geminiDecoder) record(line, whole []byte) ([]byte, bool, error) {
	var r geminiRecord
	if json.Unmarshal(line, &r) != nil {
		return nil, false, nil
	}
	id, typ := str(r.ID), str(r.Type)
	if id == "" || (typ != "user" && typ != "gemini") {
		return nil, false, nil // info, error, warning: the CLI's notes
	}
	prev := d.shown[id]
	now := &geminiShown{text: r.Content, thoughts: len(r.Thoughts), calls: map[string]bool{}}
	if prev != nil {
		now.calls = prev.calls
	}
	var parts [][]byte
	if prev == nil || !bytes.Equal(prev.text, r.Content) {
		parts = append(parts, contentParts(r.Content)...)
	}
	from := 0
	if prev != nil {
		from = min(prev.thoughts, len(r.Thoughts))
	}
	for _, t := range r.Thoughts[from:] {
		parts = append(parts, thoughtPart(t))
	}
	for _, c := range r.ToolCalls {
		cid := str(fields(c)["id"])
		if !now.calls[cid] || cid == "" {
			parts = append(parts, callPart(c))
			now.calls[cid] = true
		}
	}
	d.shown[id] = now
	if len(parts) == 0 {
		return nil, false, nil // a rewrite that shows nothing new
	}
	msg := message{ts: stringOrNil(r.Timestamp), content: joinParts(parts), whole: whole}
	if prev == nil {
		msg.id = r.ID
	} else {
		msg.continues = d.last == id
	}
	d.last = id
	context := ""
	switch {
	case typ == "gemini":
		msg.role = json.RawMessage(`"assistant"`)
		if model := str(r.Model); model != "" {
			d.s.Model = model // the last one: /model can change it
		}
	case onlyResponses(r.Content):
		msg.role = json.RawMessage(`"tool"`)
	default:
		msg.role = json.RawMessage(`"user"`)
		text := geminiText(r.Content)
		if context = kindOf(text, geminiPrefixes); context == "" && d.firstPrompt == "" {
			d.firstPrompt = text
		}
	}
	raw, err := msg.build(line)
	if err != nil {
		return nil, false, err
	}
	return withContext(raw, context), true, nil
}

// contentParts is a record's content as API parts: a string is one text
// part ("" none), an array is parts already.
func contentParts(c json.RawMessage) [][]byte {
	switch backing.FirstByte(c) {
	case '"':
		if str(c) == "" {
			return nil
		}
		return [][]byte{append(append([]byte(`{"text":`), c...), '}')}
	case '[':
		var parts []json.RawMessage
		json.Unmarshal(c, &parts)
		out := make([][]byte, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	}
	return nil
}

// thoughtPart shows one of Gemini CLI's thought summaries ({subject,
// description}) as a thought part.
func thoughtPart(t json.RawMessage) []byte {
	f := fields(t)
	text := strings.TrimSpace(str(f["subject"]) + "\n\n" + str(f["description"]))
	q, _ := json.Marshal(text)
	return append(append([]byte(`{"thought":true,"text":`), q...), '}')
}

// callPart is a tool call record as a functionCall part: its id, name and
// args (the result and the display fields stay in "source"; the result
// shows as the function response that follows).
func callPart(c json.RawMessage) []byte {
	f := fields(c)
	var b bytes.Buffer
	b.WriteString(`{"functionCall":{`)
	sep := ""
	for _, k := range []string{"id", "name", "args"} {
		if v := f[k]; v != nil {
			b.WriteString(sep + `"` + k + `":`)
			b.Write(v)
			sep = ","
		}
	}
	b.WriteString("}}")
	return b.Bytes()
}

func joinParts(parts [][]byte) json.RawMessage {
	return append(append([]byte{'['}, bytes.Join(parts, []byte{','})...), ']')
}

// onlyResponses says whether content is a non-empty array of function
// responses: what Gemini CLI sends back in the user's name after a call.
func onlyResponses(c json.RawMessage) bool {
	var parts []map[string]json.RawMessage
	if json.Unmarshal(c, &parts) != nil || len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if backing.FirstByte(p["functionResponse"]) != '{' {
			return false
		}
	}
	return true
}

// geminiText is the first text of a content: the string, or the first
// part's "text".
func geminiText(c json.RawMessage) string {
	if backing.FirstByte(c) == '"' {
		return strings.TrimSpace(str(c))
	}
	var parts []map[string]json.RawMessage
	json.Unmarshal(c, &parts)
	for _, p := range parts {
		if t := str(p["text"]); t != "" {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

func (d *geminiDecoder) session() *Session { return &d.s }

func (d *geminiDecoder) finish() *Session {
	d.s.Title = backing.TitleOf(d.firstPrompt, backing.TitleMax)
	if len(d.s.Messages) == 0 {
		// Only the metadata and $set lines: the file a --resume started
		// and left (gemini_resume.go), or a run with no prompt yet.
		d.s.setExtra(noMessagesKey, json.RawMessage("true"))
	}
	return &d.s
}
