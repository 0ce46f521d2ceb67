package backing

import (
	"testing"
)

// stored wraps an agent's line as the importer stores it.
func stored(source string) []byte {
	return []byte(`{"id":"0199","role":"event","content":"","ts":"2026-02-23T12:19:52.689Z","source":` + source + `,"source_seq":3}`)
}

func TestUsageOfShapes(t *testing.T) {
	for _, c := range []struct {
		name  string
		line  []byte
		u     Usage
		model string
		key   string
	}{
		{
			name: "claude assistant line",
			line: stored(`{"parentUuid":"p","type":"assistant","requestId":"req_1","message":{"model":"claude-opus-4-5-20251101","id":"msg_01KF","type":"message","role":"assistant","content":[],"usage":{"input_tokens":2,"cache_creation_input_tokens":3173,"cache_read_input_tokens":15289,"cache_creation":{"ephemeral_5m_input_tokens":3173,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}`),
			u:    Usage{Input: 2, Output: 1, CacheWrite: 3173, CacheRead: 15289}, model: "claude-opus-4-5-20251101", key: "claude:msg_01KF",
		},
		{
			name: "claude line without message id falls back to requestId",
			line: stored(`{"type":"assistant","requestId":"req_9","message":{"model":"claude-sonnet-4","usage":{"input_tokens":168,"output_tokens":85}}}`),
			u:    Usage{Input: 168, Output: 85}, model: "claude-sonnet-4", key: "claude:req_9",
		},
		{
			name: "claude user line",
			line: stored(`{"type":"user","message":{"role":"user","content":"hi"}}`),
		},
		{
			name: "claude line whose message is a string",
			line: stored(`{"type":"user","message":"error"}`),
		},
		{
			name: "codex token_count before the first request",
			line: stored(`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{}}}`),
		},
		{
			name: "codex token_count",
			line: stored(`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":34469,"cached_input_tokens":3456,"output_tokens":431,"reasoning_output_tokens":264,"total_tokens":34900},"last_token_usage":{"input_tokens":34469,"cached_input_tokens":3456,"output_tokens":431,"reasoning_output_tokens":264,"total_tokens":34900},"model_context_window":258400}}}`),
			u:    Usage{Input: 34469 - 3456, CacheRead: 3456, Output: 431, Reasoning: 264}, key: "codex:34469/3456/0/431/264/34900",
		},
		{
			name: "codex token_count of a later request: last, keyed by the running total",
			line: stored(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":60,"cached_input_tokens":10,"cache_write_input_tokens":0,"output_tokens":24,"reasoning_output_tokens":0,"total_tokens":84},"last_token_usage":{"input_tokens":20,"cached_input_tokens":5,"cache_write_input_tokens":3,"output_tokens":8,"reasoning_output_tokens":2,"total_tokens":28}}}}`),
			u:    Usage{Input: 12, CacheRead: 5, CacheWrite: 3, Output: 8, Reasoning: 2}, key: "codex:60/10/0/24/0/84",
		},
		{
			name: "codex token_usage_record: the same request as its token_count",
			line: stored(`{"timestamp":"t","ordinal":16,"type":"token_usage_record","payload":{"response_id":"resp_4","usage":{"input_tokens":20,"cached_input_tokens":5,"cache_write_input_tokens":3,"output_tokens":8,"reasoning_output_tokens":2,"total_tokens":28},"turn_token_usage":{"input_tokens":1},"thread_token_usage":{"input_tokens":60,"cached_input_tokens":10,"cache_write_input_tokens":0,"output_tokens":24,"reasoning_output_tokens":0,"total_tokens":84}}}`),
			u:    Usage{Input: 12, CacheRead: 5, CacheWrite: 3, Output: 8, Reasoning: 2}, key: "codex:60/10/0/24/0/84",
		},
		{
			name:  "codex turn_context names the model",
			line:  stored(`{"type":"turn_context","payload":{"turn_id":"x","cwd":"/","model":"gpt-5.3-codex","collaboration_mode":{"settings":{"model":"other"}}}}`),
			model: "gpt-5.3-codex",
		},
		{
			name: "codex response item",
			line: stored(`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}`),
		},
		{
			name: "gemini message",
			line: stored(`{"id":"ae617e8d","timestamp":"t","type":"gemini","content":"Let me list the folder.","thoughts":[],"tokens":{"input":20,"output":8,"cached":0,"thoughts":0,"tool":0,"total":28},"model":"gemini-3.1-pro-preview"}`),
			u:    Usage{Input: 20, Output: 8}, model: "gemini-3.1-pro-preview", key: "gemini:ae617e8d",
		},
		{
			name: "gemini message with cache, thoughts and tool prompt",
			line: stored(`{"id":"g2","type":"gemini","content":"x","tokens":{"input":100,"output":10,"cached":40,"thoughts":7,"tool":5,"total":122},"model":"gemini-2.5-pro"}`),
			u:    Usage{Input: 65, CacheRead: 40, Output: 17, Reasoning: 7}, model: "gemini-2.5-pro", key: "gemini:g2",
		},
		{
			name: "gemini API usageMetadata",
			line: stored(`{"responseId":"r1","modelVersion":"gemini-2.5-flash","usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"cachedContentTokenCount":40,"thoughtsTokenCount":7,"toolUsePromptTokenCount":5,"totalTokenCount":122}}`),
			u:    Usage{Input: 65, CacheRead: 40, Output: 17, Reasoning: 7}, model: "gemini-2.5-flash", key: "gemini:r1",
		},
		{
			name: "appended usage",
			line: []byte(`{"id":"m1","ts":"2026-01-01T00:00:00Z","role":"assistant","content":"hi","model":"my-model","usage":{"input":5,"output":6,"cache_read":7,"cache_write":8,"reasoning":2}}`),
			u:    Usage{Input: 5, Output: 6, CacheRead: 7, CacheWrite: 8, Reasoning: 2}, model: "my-model", key: "id:m1",
		},
		{
			name:  "appended model alone",
			line:  []byte(`{"id":"m2","role":"assistant","content":"hi","model":"m1"}`),
			model: "m1",
		},
		{
			name: "keys are exact: Usage is another field",
			line: []byte(`{"id":"m3","role":"assistant","content":"hi","Usage":{"input":5}}`),
		},
		{
			name: "a usage that is not an object",
			line: []byte(`{"id":"m4","role":"assistant","content":"hi","usage":"lots"}`),
		},
		{
			name: "counts that are not whole non-negative numbers",
			line: []byte(`{"id":"m5","role":"assistant","content":"hi","usage":{"input":-5,"output":12.0,"cache_read":"7","cache_write":1e3,"reasoning":null}}`),
			u:    Usage{Output: 12, CacheWrite: 1000}, key: "id:m5",
		},
		{
			name: "not JSON",
			line: []byte(`{"id":"`),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, model, key := UsageOf(c.line)
			if u != c.u || model != c.model || key != c.key {
				t.Errorf("UsageOf = %+v, %q, %q; want %+v, %q, %q", u, model, key, c.u, c.model, c.key)
			}
		})
	}
}

// Gemini's total is its prompt, candidates, thoughts and tool-use prompt
// counts; Usage.Total must come to the same, or sums across agents would
// mean different things.
func TestUsageTotalMatchesAgents(t *testing.T) {
	gem, _, _ := UsageOf(stored(`{"id":"g","tokens":{"input":100,"output":10,"cached":40,"thoughts":7,"tool":5,"total":122}}`))
	if gem.Total() != 122 {
		t.Errorf("gemini total %d, want 122", gem.Total())
	}
	codex, _, _ := UsageOf(stored(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":1},"last_token_usage":{"input_tokens":34469,"cached_input_tokens":3456,"output_tokens":431,"reasoning_output_tokens":264,"total_tokens":34900}}}}`))
	if codex.Total() != 34900 {
		t.Errorf("codex total %d, want its total_tokens 34900", codex.Total())
	}
}
