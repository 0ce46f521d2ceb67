package render

import (
	"encoding/json"
	"strconv"
	"strings"
)

// shapes.go is the one place that knows the shapes of message content:
// Anthropic content blocks, OpenAI response items and chat messages. It
// walks a message and hands each part to a style, which says how that part
// looks in one format (markdown.go, html.go).

// style renders the parts of a message in one format.
type style interface {
	text(s string) string    // prose the author wrote ("" when blank)
	code(s string) string    // verbatim output: file contents, command output
	json(v []byte) string    // a JSON value, indented
	note(s string) string    // a remark of render's own: "empty", "no output"
	refusal(s string) string // a model's refusal
	// thinking shows reasoning collapsed; parts are its rendered texts,
	// at least one of them not blank.
	thinking(parts []string) string
	// hiddenThinking is reasoning with nothing to read, in one short
	// line; why is "encrypted", "redacted" or "empty".
	hiddenThinking(why string) string
	// toolCall shows a call: arg is what it acts on, for its summary line
	// ("" when unknown); input is rendered already ("" when none).
	toolCall(name, id, arg, input string) string
	// todoCall shows a call that sets a to-do list (TodoWrite,
	// update_plan) as a checklist, after the call's explanation if any.
	todoCall(name, id, explanation string, list []todo) string
	// toolResult shows a tool's output, its parts rendered already;
	// failure says how it failed ("error", "exit code 1"), "" if it did not.
	toolResult(id, failure string, parts []string) string
	media(r mediaRef) string    // an image, document or file
	join(parts []string) string // a message's parts, or a remark that it is empty
}

// body renders a message's content: a string is text as written, an array
// is a list of content blocks in the Anthropic or OpenAI shapes. OpenAI
// chat messages may also carry tool calls beside the content.
func body(o object, st style) string {
	role, _ := o.str("role")
	c, hasContent := o["content"]
	var parts []string
	switch {
	case role == "tool" && !onlyResults(c):
		// An OpenAI chat tool message: its content is the tool's output.
		id, _ := o.str("tool_call_id")
		parts = append(parts, toolResult(id, c, "", false, st))
	case !hasContent || kind(c) == 'n':
		// Nothing to show here; tool_calls or the remark below speak.
	case kind(c) == '"':
		s, _ := asString(c)
		parts = append(parts, st.text(s))
	case kind(c) == '[':
		blocks, _ := asArray(c)
		for _, v := range blocks {
			parts = append(parts, block(v, st))
		}
	default:
		parts = append(parts, st.json(c))
	}
	if calls, ok := asArray(o["tool_calls"]); ok {
		for _, v := range calls {
			parts = append(parts, chatToolCall(v, st))
		}
	}
	return st.join(parts)
}

// onlyResults reports whether content is a non-empty array of tool results
// and nothing else.
func onlyResults(c json.RawMessage) bool {
	blocks, ok := asArray(c)
	if !ok || len(blocks) == 0 {
		return false
	}
	for _, v := range blocks {
		switch blockType(v) {
		case "tool_result", "mcp_tool_result", "function_call_output", "custom_tool_call_output":
		default:
			return false
		}
	}
	return true
}

// block renders one content block. Shapes it does not know, or known shapes
// missing the fields that matter, are shown as indented JSON: nothing the
// message holds is hidden from the reader.
func block(v json.RawMessage, st style) string {
	if s, ok := asString(v); ok { // a bare string in a content array
		return st.text(s)
	}
	b, ok := parseObject(v)
	if !ok {
		return st.json(v)
	}
	t, _ := b.str("type")
	switch t {
	case "text", "input_text", "output_text":
		if s, ok := b.str("text"); ok {
			return st.text(s)
		}
	case "refusal":
		if s, ok := b.str("refusal"); ok {
			return st.refusal(s)
		}
	case "thinking":
		if s, ok := b.str("thinking"); ok {
			// Claude Code may keep only the signature of its thinking.
			_, signed := b["signature"]
			return thinking([]string{st.text(s)}, signed, st)
		}
	case "redacted_thinking":
		return st.hiddenThinking("redacted")
	case "reasoning":
		return reasoning(b, st)
	case "tool_use", "server_tool_use", "mcp_tool_use":
		name, _ := b.str("name")
		id, _ := b.str("id")
		return toolCall(name, id, b["input"], st)
	case "function_call", "custom_tool_call":
		name, _ := b.str("name")
		id, _ := b.str("call_id")
		args := b["arguments"]
		if t == "custom_tool_call" {
			args = b["input"]
		}
		return toolCall(name, id, args, st)
	case "local_shell_call": // Codex: the command is in action
		if _, ok := parseObject(b["action"]); ok {
			id, _ := b.str("call_id")
			return toolCall("local_shell", id, b["action"], st)
		}
	case "web_search_call":
		return webSearch(b, st)
	case "tool_result", "mcp_tool_result":
		id, _ := b.str("tool_use_id")
		failure := ""
		if b.isTrue("is_error") {
			failure = "error"
		}
		return toolResult(id, b["content"], failure, false, st)
	case "function_call_output", "custom_tool_call_output":
		id, _ := b.str("call_id")
		return toolResult(id, b["output"], "", true, st)
	case "image", "input_image", "image_url", "document", "input_file":
		if r, ok := parseMedia(t, b); ok {
			return st.media(r)
		}
	}
	return st.json(v)
}

// thinking shows reasoning texts, or one line when none is readable:
// encrypted says that there is more, opaque.
func thinking(texts []string, encrypted bool, st style) string {
	for _, s := range texts {
		if strings.TrimSpace(s) != "" {
			return st.thinking(texts)
		}
	}
	if encrypted {
		return st.hiddenThinking("encrypted")
	}
	return st.hiddenThinking("empty")
}

// reasoning renders an OpenAI reasoning item: its summaries and any plain
// reasoning text. The encrypted part is opaque, so it is only mentioned.
func reasoning(b object, st style) string {
	var texts []string
	add := func(v json.RawMessage) {
		items, _ := asArray(v)
		for _, item := range items {
			if o, ok := parseObject(item); ok {
				if s, ok := o.str("text"); ok {
					texts = append(texts, st.text(s))
				}
			}
		}
	}
	add(b["summary"])
	if s, ok := b.str("text"); ok {
		texts = append(texts, st.text(s))
	}
	add(b["content"])
	_, encrypted := b["encrypted_content"]
	return thinking(texts, encrypted, st)
}

// toolCall renders a call: its summary names the argument that says what
// it does, and the input follows in full. OpenAI sends the input as a
// string holding JSON, which is unwrapped when it parses and shown as text
// when not (a Codex custom tool's input, such as a patch).
func toolCall(name, id string, input json.RawMessage, st style) string {
	if s, ok := asString(input); ok {
		if k := kind([]byte(s)); (k == '{' || k == '[') && json.Valid([]byte(s)) {
			input = json.RawMessage(s)
		} else {
			rendered := ""
			if s != "" {
				rendered = st.code(s)
			}
			return st.toolCall(name, id, keyArg(name, nil, s), rendered)
		}
	}
	if k := kind(input); k == 0 || k == 'n' {
		return st.toolCall(name, id, "", "")
	}
	in, _ := parseObject(input)
	if list, ok := todoList(name, in); ok {
		explanation, _ := in.str("explanation") // update_plan's
		return st.todoCall(name, id, explanation, list)
	}
	return st.toolCall(name, id, keyArg(name, in, ""), st.json(input))
}

// webSearch renders a Codex web search: what it searched for, opened or
// looked up in a page, on its summary line.
func webSearch(b object, st style) string {
	id, _ := b.str("id")
	action, _ := parseObject(b["action"])
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
		input = st.note(status)
	}
	return st.toolCall("web_search", id, shorten(arg), input)
}

// chatToolCall renders an entry of an OpenAI chat message's tool_calls.
func chatToolCall(v json.RawMessage, st style) string {
	c, ok := parseObject(v)
	if !ok {
		return st.json(v)
	}
	f, ok := parseObject(c["function"])
	if !ok {
		return st.json(v)
	}
	id, _ := c.str("id")
	name, _ := f.str("name")
	return toolCall(name, id, f["arguments"], st)
}

// toolResult renders a tool's output. Output is not prose (it is file
// contents, command output, …), so it is shown verbatim, not rendered.
// A Codex command's output (codex) also says whether the command failed.
func toolResult(id string, output json.RawMessage, failure string, codex bool, st style) string {
	var parts []string
	switch kind(output) {
	case 0, 'n':
		parts = append(parts, st.note("no output"))
	case '"':
		s, _ := asString(output)
		if codex {
			var exit int
			var hasExit bool
			if s, exit, hasExit = commandOutput(s); hasExit && exit != 0 {
				failure = "exit code " + strconv.Itoa(exit)
			}
		}
		parts = append(parts, st.code(s))
	case '[':
		items, _ := asArray(output)
		for _, item := range items {
			parts = append(parts, resultItem(item, st))
		}
	default:
		parts = append(parts, st.json(output))
	}
	return st.toolResult(id, failure, parts)
}

// resultItem renders one element of a tool result's content array: text
// verbatim, images as references, anything else as JSON.
func resultItem(v json.RawMessage, st style) string {
	if s, ok := asString(v); ok {
		return st.code(s)
	}
	b, ok := parseObject(v)
	if !ok {
		return st.json(v)
	}
	t, _ := b.str("type")
	switch t {
	case "text", "input_text", "output_text":
		if s, ok := b.str("text"); ok {
			return st.code(s)
		}
	case "image", "input_image", "image_url", "document", "input_file":
		if r, ok := parseMedia(t, b); ok {
			return st.media(r)
		}
	}
	return st.json(v)
}

// contextKind says what injected context a message is: the kind its
// "context" field names (instructions, environment, hook, command, caveat,
// compaction, interruption, meta, or a harness's own), "instructions" for
// a developer message without one, and "" for conversation.
func contextKind(o object) string {
	if k, ok := o.str("context"); ok && strings.TrimSpace(k) != "" {
		return k
	}
	if o.isString("role", "developer") {
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
	blocks, ok := asArray(c)
	if !ok {
		if k := kind(c); k == 0 || k == 'n' {
			return 0
		}
		return len(c)
	}
	n := 0
	for _, v := range blocks {
		b, _ := parseObject(v)
		if s, ok := asString(v); ok {
			n += len(s)
		} else if s, ok := b.str("text"); ok {
			n += len(s)
		} else {
			n += len(v)
		}
	}
	return n
}
