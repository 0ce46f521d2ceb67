package agents

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// GeminiTool is the tool the Gemini stand-in asks Gemini CLI to run, and
// its arguments: list_directory, which runs without a confirmation in
// `gemini -p` (run_shell_command needs one, or --yolo).
const GeminiTool = "list_directory"

var geminiArgs = map[string]any{"dir_path": "."}

// geminiRouting is the text of every generateContent (not streamed)
// answer: Gemini CLI asks the model JSON questions of its own (which
// model to route a prompt to, how complex it is, who speaks next), and
// reads these keys; a missing one is logged as an error.
const geminiRouting = `{"reasoning":"stand-in","model_choice":"flash","complexity_reasoning":"stand-in","complexity_score":10,"next_speaker":"user"}`

// NewGemini is a stand-in for the Gemini API
// (POST /v1beta/models/MODEL:streamGenerateContent?alt=sse, and
// :generateContent, :countTokens), for Gemini CLI with
// GOOGLE_GEMINI_BASE_URL set to its URL.
func NewGemini(t testing.TB) *Server {
	var s *Server
	s = start(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		_, method, _ := strings.Cut(r.URL.Path, ":")
		isModel := r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1beta/models/")
		switch {
		case isModel && method == "streamGenerateContent":
			geminiGenerate(s, w, r.URL.Path, body, true)
		case isModel && method == "generateContent":
			geminiGenerate(s, w, r.URL.Path, body, false)
		case isModel && method == "countTokens":
			s.note(r)
			writeJSON(w, map[string]any{"totalTokens": len(body)/4 + 1})
		default:
			s.unknown(w, r)
		}
	})
	return s
}

// geminiRequest is the part of a generateContent request the stand-in
// reads.
type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiCall parses a generateContent request into a Call.
func geminiCall(path string, body []byte, stream bool) (Call, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, err
	}
	c := Call{Path: path, Stream: stream, Body: body}
	for _, tool := range req.Tools {
		for _, fn := range tool.FunctionDeclarations {
			c.Tools = append(c.Tools, fn.Name)
		}
	}
	for _, content := range req.Contents {
		msg := Message{Role: content.Role}
		if msg.Role == "model" {
			msg.Role = "assistant"
		}
		var texts []string
		for _, p := range content.Parts {
			switch {
			case p.FunctionCall != nil:
				msg.ToolCalls = append(msg.ToolCalls, p.FunctionCall.Name+" "+string(p.FunctionCall.Args))
			case p.FunctionResponse != nil:
				msg.ToolResults = append(msg.ToolResults, string(p.FunctionResponse.Response))
			case p.Text != "" && !p.Thought:
				texts = append(texts, p.Text)
			}
		}
		msg.Text = strings.Join(texts, "\n")
		c.History = append(c.History, msg)
	}
	return c, nil
}

func geminiGenerate(s *Server, w http.ResponseWriter, path string, body []byte, stream bool) {
	c, err := geminiCall(path, body, stream)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := s.record(c)
	model, _, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
	var part map[string]any
	switch {
	case !stream:
		part = map[string]any{"text": geminiRouting}
		s.setReply(n, geminiRouting)
	case wantsTool(c, GeminiTool):
		part = map[string]any{"functionCall": map[string]any{"name": GeminiTool, "args": geminiArgs}}
		s.setReply(n, "tool "+GeminiTool)
	default:
		text := answer(n)
		part = map[string]any{"text": text}
		s.setReply(n, text)
	}
	reply := map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 20, "candidatesTokenCount": 8, "totalTokenCount": 28},
		"modelVersion":  model,
		"responseId":    fmt.Sprintf("standin-%d", n),
	}
	if !stream {
		writeJSON(w, reply)
		return
	}
	startSSE(w)
	data, _ := json.Marshal(reply)
	sse(w, "", data)
}
