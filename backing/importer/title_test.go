package importer

import (
	"testing"
)

func TestGeneratedTextIsNoTitle(t *testing.T) {
	in := lines(
		`{"type":"user","uuid":"1","message":{"role":"user","content":"<command-name>/clear</command-name>"}}`,
		`{"type":"user","uuid":"2","isMeta":true,"message":{"role":"user","content":"Caveat: meta"}}`,
		`{"type":"user","uuid":"3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}}`,
		`{"type":"user","uuid":"4","isSidechain":true,"message":{"role":"user","content":"a subagent's prompt"}}`,
		`{"type":"user","uuid":"5","message":{"role":"user","content":[{"type":"image","source":{}},{"type":"text","text":"  Why is the build red?\n"}]}}`,
	)
	s := mustDecode(t, in, ClaudeCode)
	if s.Title != "Why is the build red?" {
		t.Errorf("title %q", s.Title)
	}
}

func TestClaudeTitlePrecedence(t *testing.T) {
	user := `{"type":"user","uuid":"u","message":{"role":"user","content":"typed"}}`
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"first user text", []string{user}, "typed"},
		{"summary", []string{`{"type":"summary","summary":"s1"}`, user, `{"type":"summary","summary":"s2"}`}, "s2"},
		{"ai-title over summary", []string{`{"type":"ai-title","aiTitle":"a"}`, user, `{"type":"summary","summary":"s"}`}, "a"},
		{"custom over later ai-title", []string{`{"type":"custom-title","customTitle":"c1"}`, `{"type":"custom-title","customTitle":"c2"}`, `{"type":"ai-title","aiTitle":"a"}`, user}, "c2"},
		{"blank custom ignored", []string{`{"type":"custom-title","customTitle":" "}`, user}, "typed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s := mustDecode(t, lines(tc.in...), ClaudeCode); s.Title != tc.want {
				t.Errorf("title %q, want %q", s.Title, tc.want)
			}
		})
	}
}
