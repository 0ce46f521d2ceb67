package render

import "encoding/json"

// shapes.go is the one place that knows the shapes of message content:
// Anthropic content blocks, OpenAI response items and chat messages. It
// walks a message and hands each part to a style, which says how that part
// looks in one format (markdown.go, html.go).

// style renders the parts of a message in one format.
type style interface {
	text(s string) string    // prose the author wrote
	code(s string) string    // verbatim output: file contents, command output
	json(v []byte) string    // a JSON value, indented
	note(s string) string    // a remark of render's own: "empty", "no output"
	refusal(s string) string // a model's refusal
	// thinking shows reasoning collapsed; parts are its rendered texts
	// (blank when there are none), encrypted says there is more, opaque.
	thinking(parts []string, encrypted bool) string
	// toolCall shows a call; input is rendered already ("" when none).
	toolCall(name, id, input string) string
	// toolResult shows a tool's output, its parts rendered already.
	toolResult(id string, isError bool, parts []string) string
	media(typ string, b object) (string, bool) // an image, document or file
	join(parts []string) string                // a message's parts, or a remark that it is empty
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
		parts = append(parts, toolResult(id, c, false, st))
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
			return st.thinking([]string{st.text(s)}, false)
		}
	case "redacted_thinking":
		return st.thinking([]string{st.note("redacted")}, false)
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
	case "tool_result", "mcp_tool_result":
		id, _ := b.str("tool_use_id")
		return toolResult(id, b["content"], b.isTrue("is_error"), st)
	case "function_call_output", "custom_tool_call_output":
		id, _ := b.str("call_id")
		return toolResult(id, b["output"], false, st)
	case "image", "input_image", "image_url", "document", "input_file":
		if s, ok := st.media(t, b); ok {
			return s
		}
	}
	return st.json(v)
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
	return st.thinking(texts, encrypted)
}

// toolCall renders a call with its input. OpenAI sends the input as a
// string holding JSON, which is unwrapped when it parses and shown as text
// when not.
func toolCall(name, id string, input json.RawMessage, st style) string {
	switch kind(input) {
	case 0, 'n':
		return st.toolCall(name, id, "")
	case '"':
		s, _ := asString(input)
		if k := kind([]byte(s)); (k == '{' || k == '[') && json.Valid([]byte(s)) {
			return st.toolCall(name, id, st.json([]byte(s)))
		}
		if s == "" {
			return st.toolCall(name, id, "")
		}
		return st.toolCall(name, id, st.code(s))
	}
	return st.toolCall(name, id, st.json(input))
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
func toolResult(id string, output json.RawMessage, isError bool, st style) string {
	var parts []string
	switch kind(output) {
	case 0, 'n':
		parts = append(parts, st.note("no output"))
	case '"':
		s, _ := asString(output)
		parts = append(parts, st.code(s))
	case '[':
		items, _ := asArray(output)
		for _, item := range items {
			parts = append(parts, resultItem(item, st))
		}
	default:
		parts = append(parts, st.json(output))
	}
	return st.toolResult(id, isError, parts)
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
		if s, ok := st.media(t, b); ok {
			return s
		}
	}
	return st.json(v)
}
