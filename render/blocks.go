package render

import (
	"encoding/json"
	"strings"
)

// body renders a message's content: a string is Markdown as written, an
// array is a list of content blocks in the Anthropic or OpenAI shapes.
// OpenAI chat messages may also carry tool calls beside the content.
func body(o object) string {
	role, _ := o.str("role")
	c, hasContent := o["content"]
	var parts []string
	switch {
	case role == "tool" && !onlyResults(c):
		// An OpenAI chat tool message: its content is the tool's output.
		id, _ := o.str("tool_call_id")
		parts = append(parts, toolResult(id, c, false))
	case !hasContent || kind(c) == 'n':
		// Nothing to show here; tool_calls or the fallback below speak.
	case kind(c) == '"':
		s, _ := asString(c)
		parts = append(parts, markdownText(s))
	case kind(c) == '[':
		blocks, _ := asArray(c)
		for _, v := range blocks {
			parts = append(parts, block(v))
		}
	default:
		parts = append(parts, jsonFence(c))
	}
	if calls, ok := asArray(o["tool_calls"]); ok {
		for _, v := range calls {
			parts = append(parts, chatToolCall(v))
		}
	}
	return join(parts)
}

// join separates non-empty parts with a blank line, and says so when a
// message has nothing to show, so its label is not left dangling.
func join(parts []string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return "_(empty)_"
	}
	return strings.Join(kept, "\n\n")
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
func block(v json.RawMessage) string {
	if s, ok := asString(v); ok { // a bare string in a content array
		return markdownText(s)
	}
	b, ok := parseObject(v)
	if !ok {
		return jsonFence(v)
	}
	t, _ := b.str("type")
	switch t {
	case "text", "input_text", "output_text":
		if s, ok := b.str("text"); ok {
			return markdownText(s)
		}
	case "refusal":
		if s, ok := b.str("refusal"); ok {
			return "**refusal**\n\n" + markdownText(s)
		}
	case "thinking":
		if s, ok := b.str("thinking"); ok {
			return details("thinking", markdownText(s))
		}
	case "redacted_thinking":
		return details("thinking", "_(redacted)_")
	case "reasoning":
		return reasoning(b)
	case "tool_use", "server_tool_use", "mcp_tool_use":
		name, _ := b.str("name")
		id, _ := b.str("id")
		return toolCall(name, id, b["input"])
	case "function_call", "custom_tool_call":
		name, _ := b.str("name")
		id, _ := b.str("call_id")
		args := b["arguments"]
		if t == "custom_tool_call" {
			args = b["input"]
		}
		return toolCall(name, id, args)
	case "tool_result", "mcp_tool_result":
		id, _ := b.str("tool_use_id")
		return toolResult(id, b["content"], b.isTrue("is_error"))
	case "function_call_output", "custom_tool_call_output":
		id, _ := b.str("call_id")
		return toolResult(id, b["output"], false)
	case "image", "input_image", "image_url", "document", "input_file":
		if s, ok := media(t, b); ok {
			return s
		}
	}
	return jsonFence(v)
}

// details wraps Markdown in a collapsed <details> element, so long thinking
// does not bury the conversation in viewers that render HTML. The blank
// lines let the Markdown inside render as Markdown.
func details(summary, md string) string {
	if md == "" {
		md = "_(empty)_"
	}
	return "<details><summary>" + summary + "</summary>\n\n" + md + "\n\n</details>"
}

// reasoning renders an OpenAI reasoning item: its summaries and any plain
// reasoning text. The encrypted part is opaque, so it is only mentioned.
func reasoning(b object) string {
	var texts []string
	add := func(v json.RawMessage) {
		items, _ := asArray(v)
		for _, item := range items {
			if o, ok := parseObject(item); ok {
				if s, ok := o.str("text"); ok {
					texts = append(texts, markdownText(s))
				}
			}
		}
	}
	add(b["summary"])
	if s, ok := b.str("text"); ok {
		texts = append(texts, markdownText(s))
	}
	add(b["content"])
	md := join(texts)
	if md == "_(empty)_" {
		if _, ok := b["encrypted_content"]; ok {
			md = "_(encrypted)_"
		}
	}
	return details("thinking", md)
}

// toolCall renders a call: a label with the tool's name and call id, then
// its input as indented JSON. OpenAI sends the input as a string holding
// JSON, which is unwrapped when it parses and shown as text when not.
func toolCall(name, id string, input json.RawMessage) string {
	l := "**tool call**"
	if name != "" {
		l += " " + inlineCode(name)
	}
	if id != "" {
		l += " · " + inlineCode(id)
	}
	switch kind(input) {
	case 0, 'n':
		return l
	case '"':
		s, _ := asString(input)
		if k := kind([]byte(s)); (k == '{' || k == '[') && json.Valid([]byte(s)) {
			return l + "\n\n" + jsonFence([]byte(s))
		}
		if s == "" {
			return l
		}
		return l + "\n\n" + fence("", s)
	}
	return l + "\n\n" + jsonFence(input)
}

// chatToolCall renders an entry of an OpenAI chat message's tool_calls.
func chatToolCall(v json.RawMessage) string {
	c, ok := parseObject(v)
	if !ok {
		return jsonFence(v)
	}
	id, _ := c.str("id")
	f, ok := parseObject(c["function"])
	if !ok {
		return jsonFence(v)
	}
	name, _ := f.str("name")
	return toolCall(name, id, f["arguments"])
}

// toolResult renders a tool's output: a label with the call id, then the
// output in code fences. Output is not Markdown (it is file contents,
// command output, …), so it is fenced rather than rendered.
func toolResult(id string, output json.RawMessage, isError bool) string {
	l := "**result**"
	if isError {
		l = "**result (error)**"
	}
	if id != "" {
		l += " · " + inlineCode(id)
	}
	parts := []string{l}
	switch kind(output) {
	case 0, 'n':
		parts = append(parts, "_(no output)_")
	case '"':
		s, _ := asString(output)
		parts = append(parts, fence("", s))
	case '[':
		items, _ := asArray(output)
		for _, item := range items {
			parts = append(parts, resultItem(item))
		}
	default:
		parts = append(parts, jsonFence(output))
	}
	return strings.Join(parts, "\n\n")
}

// resultItem renders one element of a tool result's content array: text
// fenced, images as references, anything else as JSON.
func resultItem(v json.RawMessage) string {
	if s, ok := asString(v); ok {
		return fence("", s)
	}
	b, ok := parseObject(v)
	if !ok {
		return jsonFence(v)
	}
	t, _ := b.str("type")
	switch t {
	case "text", "input_text", "output_text":
		if s, ok := b.str("text"); ok {
			return fence("", s)
		}
	case "image", "input_image", "image_url", "document", "input_file":
		if s, ok := media(t, b); ok {
			return s
		}
	}
	return jsonFence(v)
}
