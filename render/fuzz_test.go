package render

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzMarkdown(f *testing.F) {
	for _, m := range sequence {
		f.Add(m.Raw, m.Turn)
	}
	seeds := []string{
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":true}]}`,
		`{"role":"assistant","content":[{"type":"function_call","name":"f","call_id":"c","arguments":"{\"a\":[1,2]}"},{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}]}]}`,
		`{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}`,
		`{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"~~~"}]}`,
		"{\"role\":\"user\",\"content\":\"```` x\\n  ~~~\"}",
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"n","arguments":"[]"}}]}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[{"content":"a","status":"in_progress"}]}},{"type":"web_search_call","id":"w","action":{"type":"find","pattern":"p","url":"u"}}]}`,
		`{"role":"assistant","content":[{"type":"custom_tool_call","name":"apply_patch","call_id":"c","input":"*** Add File: a` + "```" + `\n"},{"type":"thinking","thinking":"","signature":"s"}]}`,
		`{"role":"tool","content":[{"type":"function_call_output","call_id":"c","output":"{\"output\":\"` + "```" + `\",\"metadata\":{\"exit_code\":1}}"}]}`,
		`{"role":"user","context":"compaction","content":"` + "```" + `\nopen"}`,
		`{"role":"developer","context":"a\nb_*","content":"x"}`,
		`{"role":"user","content":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}`,
		`{"role":"user","content":[[[[[[[[[[[[[[[[[0,0,0,0,0,0,0,0]]]]]]]]]]]]]]]]]}`,
		`[]`,
		``,
	}
	for i, s := range seeds {
		f.Add([]byte(s), i%3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, turn int) {
		out := Markdown(Message{Raw: raw, Turn: turn})
		if utf8.Valid(raw) && !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 output for valid UTF-8 input %q: %q", raw, out)
		}
		if !strings.HasSuffix(string(out), "\n\n") {
			t.Fatalf("output does not end with a blank line: %q", out)
		}
		if strings.HasSuffix(string(out), "\n\n\n") {
			t.Fatalf("output ends with more than one blank line: %q", out)
		}
		if f := openFence(string(out)); f != "" {
			t.Fatalf("output leaves fence %q open: %q", f, out)
		}
		checkLinear(t, "Markdown", raw, out)
	})
}
