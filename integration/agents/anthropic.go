package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// AnthropicTool is the tool the Anthropic stand-in asks Claude Code to
// run, and its input: Claude Code's shell tool.
const (
	AnthropicTool  = "Bash"
	anthropicInput = `{"command":"ls","description":"List the files"}`
)

// NewAnthropic is a stand-in for the Anthropic Messages API
// (POST /v1/messages, streamed as server-sent events), for Claude Code
// with ANTHROPIC_BASE_URL set to its URL.
func NewAnthropic(t testing.TB) *Server {
	var s *Server
	s = start(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
			anthropicMessages(s, w, body)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
			s.note(r)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
		default:
			s.unknown(w, r)
		}
	})
	return s
}

// anthropicRequest is the part of a Messages request the stand-in reads.
type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Content json.RawMessage `json:"content"` // a tool_result's: a string or blocks
}

// anthropicCall parses a Messages request into a Call.
func anthropicCall(body []byte) (Call, anthropicRequest, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, req, err
	}
	c := Call{Path: "/v1/messages", Stream: req.Stream, Body: body}
	for _, tool := range req.Tools {
		c.Tools = append(c.Tools, tool.Name)
	}
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		var texts []string
		for _, b := range anthropicBlocks(m.Content) {
			switch b.Type {
			case "text":
				texts = append(texts, b.Text)
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, b.Name+" "+string(b.Input))
			case "tool_result":
				var out []string
				for _, inner := range anthropicBlocks(b.Content) {
					out = append(out, inner.Text)
				}
				msg.ToolResults = append(msg.ToolResults, strings.Join(out, "\n"))
			}
		}
		msg.Text = strings.Join(texts, "\n")
		c.History = append(c.History, msg)
	}
	return c, req, nil
}

// anthropicBlocks reads content that is either a string or a list of
// blocks.
func anthropicBlocks(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var blocks []anthropicBlock
	json.Unmarshal(raw, &blocks)
	return blocks
}

func anthropicMessages(s *Server, w http.ResponseWriter, body []byte) {
	c, req, err := anthropicCall(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := s.record(c)
	id := fmt.Sprintf("msg_standin_%d", n)
	// The reply as Messages API content blocks; for a stream, the same
	// blocks go out as start, one delta, stop.
	var block map[string]any
	var delta map[string]any
	stop := "end_turn"
	if wantsTool(c, AnthropicTool) {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_standin_%d", n), "name": AnthropicTool, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": anthropicInput}
		stop = "tool_use"
		s.setReply(n, "tool "+AnthropicTool)
	} else {
		text := answer(n)
		block = map[string]any{"type": "text", "text": ""}
		delta = map[string]any{"type": "text_delta", "text": text}
		s.setReply(n, text)
	}
	usage := map[string]any{"input_tokens": 20, "output_tokens": 8, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		whole := block
		if stop == "tool_use" {
			var input any
			json.Unmarshal([]byte(anthropicInput), &input)
			whole = map[string]any{"type": "tool_use", "id": block["id"], "name": AnthropicTool, "input": input}
		} else {
			whole = map[string]any{"type": "text", "text": delta["text"]}
		}
		writeJSON(w, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{whole}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	startSSE(w)
	event := func(name string, v map[string]any) {
		v["type"] = name
		data, _ := json.Marshal(v)
		sse(w, name, data)
	}
	event("message_start", map[string]any{"message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 20, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	event("content_block_start", map[string]any{"index": 0, "content_block": block})
	event("ping", map[string]any{})
	event("content_block_delta", map[string]any{"index": 0, "delta": delta})
	event("content_block_stop", map[string]any{"index": 0})
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 8}})
	event("message_stop", map[string]any{})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
