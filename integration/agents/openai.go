package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// OpenAITool is the tool the Responses stand-in asks Codex to run, and
// its arguments: Codex's shell tool.
const (
	OpenAITool  = "exec_command"
	openAIInput = `{"cmd":"ls"}`
)

// NewOpenAI is a stand-in for the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events), for Codex with a
// model provider whose base_url is its URL + "/v1" and wire_api
// "responses".
func NewOpenAI(t testing.TB) *Server {
	var s *Server
	s = start(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
			openAIResponses(s, w, body)
		default:
			s.unknown(w, r)
		}
	})
	return s
}

// openAIRequest is the part of a Responses request the stand-in reads.
type openAIRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"` // a string or items
	Tools        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

type openAIItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"` // a string or parts
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`  // a custom tool call's
	Output    json.RawMessage `json:"output"` // a string or parts
}

type openAIPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// openAICall parses a Responses request into a Call.
func openAICall(body []byte) (Call, openAIRequest, error) {
	var req openAIRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, req, err
	}
	c := Call{Path: "/v1/responses", Stream: req.Stream, Body: body}
	for _, tool := range req.Tools {
		name := tool.Name
		if name == "" {
			name = tool.Type
		}
		c.Tools = append(c.Tools, name)
	}
	var items []openAIItem
	var text string
	if json.Unmarshal(req.Input, &text) == nil {
		items = []openAIItem{{Type: "message", Role: "user", Content: req.Input}}
	} else if err := json.Unmarshal(req.Input, &items); err != nil {
		return Call{}, req, err
	}
	for _, it := range items {
		switch it.Type {
		case "message":
			role := it.Role
			if role == "developer" {
				role = "system"
			}
			c.History = append(c.History, Message{Role: role, Text: openAIText(it.Content)})
		case "function_call":
			c.History = append(c.History, Message{Role: "assistant", ToolCalls: []string{it.Name + " " + it.Arguments}})
		case "custom_tool_call":
			c.History = append(c.History, Message{Role: "assistant", ToolCalls: []string{it.Name + " " + it.Input}})
		case "function_call_output", "custom_tool_call_output":
			c.History = append(c.History, Message{Role: "user", ToolResults: []string{openAIText(it.Output)}})
		}
	}
	return c, req, nil
}

// openAIText is the text of content or output that is a string or parts.
func openAIText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []openAIPart
	json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

func openAIResponses(s *Server, w http.ResponseWriter, body []byte) {
	c, req, err := openAICall(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := s.record(c)
	id := fmt.Sprintf("resp_standin_%d", n)
	var item map[string]any
	if wantsTool(c, OpenAITool) {
		item = map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_standin_%d", n), "call_id": fmt.Sprintf("call_standin_%d", n),
			"name": OpenAITool, "arguments": openAIInput, "status": "completed",
		}
		s.setReply(n, "tool "+OpenAITool)
	} else {
		text := answer(n)
		item = map[string]any{
			"type": "message", "id": fmt.Sprintf("msg_standin_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
		}
		s.setReply(n, text)
	}
	usage := map[string]any{
		"input_tokens": 20, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 8, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 28,
	}
	response := func(status string, output []any) map[string]any {
		r := map[string]any{"id": id, "object": "response", "model": req.Model, "status": status, "output": output}
		if status == "completed" {
			r["usage"] = usage
		}
		return r
	}
	if !req.Stream {
		writeJSON(w, response("completed", []any{item}))
		return
	}
	startSSE(w)
	seq := 0
	event := func(name string, v map[string]any) {
		v["type"] = name
		v["sequence_number"] = seq
		seq++
		data, _ := json.Marshal(v)
		sse(w, name, data)
	}
	event("response.created", map[string]any{"response": response("in_progress", []any{})})
	event("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	if item["type"] == "message" {
		event("response.output_text.delta", map[string]any{"output_index": 0, "content_index": 0, "item_id": item["id"], "delta": answer(n)})
	}
	event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	event("response.completed", map[string]any{"response": response("completed", []any{item})})
}
