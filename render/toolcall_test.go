package render

import "testing"

// HasToolCall finds a call in every shape the renderings show as one, and
// nothing else: results, text, events.
func TestHasToolCall(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want bool
	}{
		{`{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t","name":"Bash","input":{}}]}`, true},
		{`{"role":"assistant","content":[{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c"}]}`, true},
		{`{"role":"assistant","content":[{"type":"local_shell_call","action":{}}]}`, true},
		{`{"role":"assistant","content":[{"type":"web_search_call","action":{}}]}`, true},
		{`{"role":"model","content":[{"functionCall":{"name":"ls","args":{}}}]}`, true},
		{`{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`, true},
		{`{"role":"assistant","content":"","tool_calls":[]}`, false},
		{`{"role":"assistant","content":"I will call a tool_use"}`, false},
		{`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}`, false},
		{`{"role":"assistant","content":[{"type":"function_call_output","call_id":"c","output":"ok"}]}`, false},
		{`{"role":"event","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}`, false},
		{`not json`, false},
	} {
		if got := HasToolCall([]byte(c.raw)); got != c.want {
			t.Errorf("HasToolCall(%s) = %v, want %v", c.raw, got, c.want)
		}
	}
}
