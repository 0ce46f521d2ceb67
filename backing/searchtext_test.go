package backing

import (
	"testing"
	"time"
)

func TestSearchText(t *testing.T) {
	for _, c := range []struct{ line, role, text string }{
		{`{"role":"user","content":"hello there","ts":"2026-01-02T03:04:05Z"}`, "user", "hello there"},
		{`{"role":"assistant","content":[{"type":"text","text":"I ran it"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la"}}]}`,
			"assistant", "I ran it\n\nls -la\n\nBash"},
		{`{"role":"assistant","content":[{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\"cmd\":[\"rg\",\"fsync\"]}"}]}`,
			"assistant", "rg\n\nfsync\n\nshell"},
		{`{"role":"assistant","content":[{"type":"reasoning","encrypted_content":"gAAAA","summary":[{"type":"summary_text","text":"thinking"}]}]}`,
			"assistant", "thinking"},
		{`{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]}`, "user", ""},
		{`{"role":"event","content":"queue"}`, "", ""},
		{`not json`, "", ""},
	} {
		role, _, text := SearchText([]byte(c.line))
		if role != c.role || text != c.text {
			t.Errorf("SearchText(%s) = %q, %q; want %q, %q", c.line, role, text, c.role, c.text)
		}
	}
	_, ts, _ := SearchText([]byte(`{"role":"user","content":"x","ts":"2026-01-02T03:04:05.5Z"}`))
	if !ts.Equal(time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC)) {
		t.Errorf("ts = %v", ts)
	}
}
