package render

import (
	"encoding/json"
	"strconv"
	"strings"
)

// shapes.go is the one place that knows the shapes of message content:
// Anthropic content blocks, OpenAI response items and chat messages. It
// walks a message and hands each part to a style, which says how that part
// looks in one format (markdown.go, html.go), through a walk, which keeps
// the piece within its bounds (limits.go).

// style renders the parts of a message in one format.
type style interface {
	text(s string) string       // prose the author wrote ("" when blank)
	plain(s string) string      // the same, its Markdown not rendered
	code(s string) string       // verbatim output: file contents, command output
	json(s string) string       // a JSON value, as jsonDisplay shows it
	note(s string) string       // a remark of render's own: "empty", "no output"
	refusal(text string) string // a model's refusal, its text rendered already
	// thinking shows reasoning collapsed; parts are its rendered texts,
	// at least one of them not blank.
	thinking(parts []string) string
	// toolCall shows a call: arg is what it acts on, for its summary line
	// ("" when unknown); input is rendered already ("" when none).
	toolCall(name, id, arg, input string) string
	// todoCall shows a call that sets a to-do list (TodoWrite,
	// update_plan) as a checklist, after the call's explanation (rendered
	// already) if any.
	todoCall(name, id, explanation string, list []todo) string
	// toolResult shows a tool's output, its parts rendered already;
	// failure says how it failed ("error", "exit code 1"), "" if it did not.
	toolResult(id, failure string, parts []string) string
	media(r mediaRef) string    // an image, document or file
	join(parts []string) string // a message's parts, or a remark that it is empty
	cut(note string) string     // a marker for what a piece leaves out (cutNote)
}

// body renders a message's content: a string is text as written, an array
// is a list of content blocks in the Anthropic or OpenAI shapes. OpenAI
// chat messages may also carry tool calls beside the content.
func body(f *fields, st style) string {
	w := &walk{st: st}
	role := f.role
	c := f.content.val
	hasContent := c != nil
	var buf [4]string // most messages have few parts: kept on the stack (joinParts)
	parts := buf[:0]
	switch {
	case role == "tool" && !onlyResults(c):
		// An OpenAI chat tool message: its content is the tool's output.
		id, _ := f.toolCallID.str()
		parts = append(parts, w.toolResult(id, c, "", false))
	case !hasContent || kind(c) == 'n':
		// Nothing to show here; tool_calls or the remark below speak.
	case kind(c) == '"':
		s, _ := f.content.str() // c, decoded without a second scan
		parts = append(parts, w.text(s))
	case kind(c) == '[':
		blocks, _ := asArray(c)
		parts = append(parts, w.each(blocks, w.block)...)
	default:
		parts = append(parts, w.json(c))
	}
	if calls, ok := asArray(f.toolCalls.val); ok {
		parts = append(parts, w.each(calls, w.chatToolCall)...)
	}
	return joinParts(st, parts)
}

// joinParts is st.join(parts), called directly for this package's styles:
// parts passed through the interface would move to the heap, an
// allocation for every message.
func joinParts(st style, parts []string) string {
	switch st.(type) {
	case markdownStyle:
		return join(parts)
	case htmlStyle:
		return htmlJoin(parts)
	}
	return st.join(append([]string(nil), parts...))
}

// onlyResults reports whether content is a non-empty array of tool results
// and nothing else.
func onlyResults(c json.RawMessage) bool {
	var buf arrayBuf // asked of every user message: no allocation
	blocks, ok := asArrayIn(buf[:0], c)
	if !ok || len(blocks) == 0 {
		return false
	}
	for _, v := range blocks {
		switch blockType(v) {
		case "tool_result", "mcp_tool_result", "function_call_output", "custom_tool_call_output":
		case "":
			if b, _ := parseObject(v); kind(b.get("functionResponse")) != '{' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// block renders one content block. Shapes it does not know, or known shapes
// missing the fields that matter, are shown as JSON: nothing the message
// holds is hidden from the reader.
func (w *walk) block(v json.RawMessage) string {
	if s, ok := asString(v); ok { // a bare string in a content array
		return w.text(s)
	}
	var buf objectBuf // the block's members stay on the stack
	b, ok := parseObjectIn(buf[:0], v)
	if !ok {
		return w.json(v)
	}
	t, _ := b.str("type")
	switch t {
	case "text", "input_text", "output_text":
		if s, ok := b.str("text"); ok {
			return w.text(s)
		}
	case "refusal":
		if s, ok := b.str("refusal"); ok {
			return w.st.refusal(w.text(s))
		}
	case "thinking":
		if s, ok := b.str("thinking"); ok {
			// Claude Code may keep only the signature of its thinking.
			signed := b.get("signature") != nil
			return w.thinking([]string{w.text(s)}, signed)
		}
	case "redacted_thinking":
		return w.st.note("redacted thinking")
	case "reasoning":
		return w.reasoning(b)
	case "tool_use", "server_tool_use", "mcp_tool_use":
		name, _ := b.str("name")
		id, _ := b.str("id")
		return w.toolCall(name, id, b.get("input"))
	case "function_call", "custom_tool_call":
		name, _ := b.str("name")
		id, _ := b.str("call_id")
		args := b.get("arguments")
		if t == "custom_tool_call" {
			args = b.get("input")
		}
		return w.toolCall(name, id, args)
	case "local_shell_call": // Codex: the command is in action
		if _, ok := parseObject(b.get("action")); ok {
			id, _ := b.str("call_id")
			return w.toolCall("local_shell", id, b.get("action"))
		}
	case "web_search_call":
		return w.webSearch(b)
	case "tool_result", "mcp_tool_result":
		id, _ := b.str("tool_use_id")
		failure := ""
		if b.isTrue("is_error") {
			failure = "error"
		}
		return w.toolResult(id, b.get("content"), failure, false)
	case "function_call_output", "custom_tool_call_output":
		id, _ := b.str("call_id")
		return w.toolResult(id, b.get("output"), "", true)
	case "image", "input_image", "image_url", "document", "input_file":
		if r, ok := parseMedia(t, b); ok {
			return w.media(r)
		}
	case "":
		if out, ok := w.geminiPart(b); ok {
			return out
		}
	}
	return w.json(v)
}

// geminiPart renders a Gemini API part, which has no "type": text (a
// thought when "thought" is true), a functionCall or a functionResponse.
// A functionResponse's "response" is {"output": …} or {"error": …} as
// Gemini CLI writes it, any object otherwise.
func (w *walk) geminiPart(b object) (string, bool) {
	if call, ok := parseObject(b.get("functionCall")); ok {
		name, _ := call.str("name")
		id, _ := call.str("id")
		return w.toolCall(name, id, call.get("args")), true
	}
	if resp, ok := parseObject(b.get("functionResponse")); ok {
		id, _ := resp.str("id")
		out, failure := resp.get("response"), ""
		if r, ok := parseObject(out); ok {
			switch {
			case r.get("output") != nil:
				out = r.get("output")
			case r.get("error") != nil:
				out, failure = r.get("error"), "error"
			}
		}
		return w.toolResult(id, out, failure, false), true
	}
	if s, ok := b.str("text"); ok {
		if b.isTrue("thought") {
			return w.thinking([]string{w.text(s)}, false), true
		}
		return w.text(s), true
	}
	return "", false
}

// thinking shows reasoning texts, or one line when none is readable:
// encrypted says that there is more, opaque.
func (w *walk) thinking(texts []string, encrypted bool) string {
	for _, s := range texts {
		if strings.TrimSpace(s) != "" {
			return w.st.thinking(texts)
		}
	}
	// Nothing to read, so nothing to unfold: one note says why.
	why := "empty"
	if encrypted {
		why = "encrypted"
	}
	return w.st.note(why + " thinking")
}

// reasoning renders an OpenAI reasoning item: its summaries and any plain
// reasoning text. The encrypted part is opaque, so it is only mentioned.
func (w *walk) reasoning(b object) string {
	var texts []string
	add := func(v json.RawMessage) {
		items, _ := asArray(v)
		texts = append(texts, w.each(items, func(item json.RawMessage) string {
			var buf objectBuf // the item's members stay on the stack
			if o, ok := parseObjectIn(buf[:0], item); ok {
				if s, ok := o.str("text"); ok {
					return w.text(s)
				}
			}
			return ""
		})...)
	}
	add(b.get("summary"))
	if s, ok := b.str("text"); ok {
		texts = append(texts, w.text(s))
	}
	add(b.get("content"))
	encrypted := b.get("encrypted_content") != nil
	return w.thinking(texts, encrypted)
}

// toolCall renders a call: its summary names the argument that says what
// it does, and the input follows in full. OpenAI sends the input as a
// string holding JSON, which is unwrapped when it parses and shown as text
// when not (a Codex custom tool's input, such as a patch).
func (w *walk) toolCall(name, id string, input json.RawMessage) string {
	name, id = w.label(name), w.label(id)
	var buf objectBuf // the input's members stay on the stack
	var in object
	if s, ok := asString(input); ok {
		raw := []byte(s)
		switch kind(raw) {
		case '{': // parseObject accepts what json.Valid does (FuzzScanObject)
			in, ok = parseObjectIn(buf[:0], raw)
		case '[':
			ok = validJSON(raw)
		default:
			ok = false
		}
		if !ok {
			rendered := ""
			if s != "" {
				rendered = w.code(s)
			}
			return w.st.toolCall(name, id, keyArg(name, nil, s), rendered)
		}
		input = raw
	} else {
		if k := kind(input); k == 0 || k == 'n' {
			return w.st.toolCall(name, id, "", "")
		}
		in, _ = parseObjectIn(buf[:0], input)
	}
	if list, ok := todoList(name, in); ok && w.fitsTodos(list) {
		explanation, _ := in.str("explanation") // update_plan's
		return w.st.todoCall(name, id, w.text(explanation), list)
	}
	return w.st.toolCall(name, id, keyArg(name, in, ""), w.json(input))
}

// webSearch renders a Codex web search: what it searched for, opened or
// looked up in a page, on its summary line.
func (w *walk) webSearch(b object) string {
	id, _ := b.str("id")
	id = w.label(id)
	action, _ := parseObject(b.get("action"))
	var arg string
	switch t, _ := action.str("type"); t {
	case "open_page":
		arg, _ = action.str("url")
	case "find":
		arg, _ = action.str("pattern")
		if url, _ := action.str("url"); url != "" {
			arg += " in " + url
		}
	default:
		arg, _ = action.str("query")
	}
	status, _ := b.str("status")
	input := ""
	if status != "" && status != "completed" {
		input = w.st.note(w.label(status))
	}
	return w.st.toolCall("web_search", id, shorten(arg), input)
}

// chatToolCall renders an entry of an OpenAI chat message's tool_calls.
func (w *walk) chatToolCall(v json.RawMessage) string {
	c, ok := parseObject(v)
	if !ok {
		return w.json(v)
	}
	f, ok := parseObject(c.get("function"))
	if !ok {
		return w.json(v)
	}
	id, _ := c.str("id")
	name, _ := f.str("name")
	return w.toolCall(name, id, f.get("arguments"))
}

// toolResult renders a tool's output. Output is not prose (it is file
// contents, command output, …), so it is shown verbatim, not rendered.
// A Codex command's output (codex) also says whether the command failed.
func (w *walk) toolResult(id string, output json.RawMessage, failure string, codex bool) string {
	id = w.label(id)
	var parts []string
	switch kind(output) {
	case 0, 'n':
		parts = append(parts, w.st.note("no output"))
	case '"':
		s, _ := asString(output)
		if codex {
			var exit int
			var hasExit bool
			if s, exit, hasExit = commandOutput(s); hasExit && exit != 0 {
				failure = "exit code " + strconv.Itoa(exit)
			}
		}
		parts = append(parts, w.code(s))
	case '[':
		items, _ := asArray(output)
		parts = append(parts, w.each(items, w.resultItem)...)
	default:
		parts = append(parts, w.json(output))
	}
	return w.st.toolResult(id, failure, parts)
}

// resultItem renders one element of a tool result's content array: text
// verbatim, images as references, anything else as JSON.
func (w *walk) resultItem(v json.RawMessage) string {
	if s, ok := asString(v); ok {
		return w.code(s)
	}
	b, ok := parseObject(v)
	if !ok {
		return w.json(v)
	}
	t, _ := b.str("type")
	switch t {
	case "text", "input_text", "output_text":
		if s, ok := b.str("text"); ok {
			return w.code(s)
		}
	case "image", "input_image", "image_url", "document", "input_file":
		if r, ok := parseMedia(t, b); ok {
			return w.media(r)
		}
	}
	return w.json(v)
}

// contextKind says what injected context a message is: the kind its
// "context" field names (instructions, environment, hook, command, caveat,
// compaction, interruption, meta, or a harness's own), "instructions" for
// a developer message without one, and "" for conversation.
func contextKind(f *fields) string {
	if k, ok := f.context.str(); ok && strings.TrimSpace(k) != "" {
		return k
	}
	if f.roleVal.isString("developer") {
		return "instructions"
	}
	return ""
}

// contentSize is how big a message's content is to a reader: the bytes of
// its texts, and of the JSON of anything else.
func contentSize(c json.RawMessage) int {
	if s, ok := asString(c); ok {
		return len(s)
	}
	var buf arrayBuf // the blocks stay on the stack
	blocks, ok := asArrayIn(buf[:0], c)
	if !ok {
		if k := kind(c); k == 0 || k == 'n' {
			return 0
		}
		return len(c)
	}
	n := 0
	for _, v := range blocks {
		s, ok := asString(v) // a string is no object: parse only the others
		if !ok {
			var buf objectBuf // the block's members stay on the stack
			b, _ := parseObjectIn(buf[:0], v)
			s, ok = b.str("text")
		}
		if ok {
			n += len(s)
		} else {
			n += len(v)
		}
	}
	return n
}

// HasToolCall reports whether a stored message calls a tool, in any of
// the shapes body renders as a call: a content block (Anthropic tool_use,
// OpenAI function_call, Codex local_shell_call and web_search_call, a
// Gemini functionCall part) or an OpenAI chat message's tool_calls. A
// replay pauses there (sessfs replay --pause-at-tools). Events call
// nothing.
func HasToolCall(raw []byte) bool {
	o, ok := parseObject(raw)
	f := readFields(o)
	if !ok || isEvent(&f) {
		return false
	}
	if calls, ok := asArray(f.toolCalls.val); ok && len(calls) > 0 {
		return true
	}
	blocks, _ := asArray(f.content.val)
	for _, v := range blocks {
		switch blockType(v) {
		case "tool_use", "server_tool_use", "mcp_tool_use", "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
			return true
		case "":
			if b, _ := parseObject(v); kind(b.get("functionCall")) == '{' {
				return true
			}
		}
	}
	return false
}
