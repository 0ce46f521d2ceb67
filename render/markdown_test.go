package render

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// md lets expected Markdown be written in Go raw strings, which cannot hold
// backticks: each ´ stands for a backtick.
func md(s string) string { return strings.ReplaceAll(s, "´", "`") }

// checkPiece asserts what every piece must satisfy: it ends with exactly one
// blank line, is valid UTF-8, leaves no code fence open, and renders the
// same bytes twice.
func checkPiece(t *testing.T, m Message, got []byte) {
	t.Helper()
	if !strings.HasSuffix(string(got), "\n\n") || strings.HasSuffix(string(got), "\n\n\n") {
		t.Errorf("piece does not end with exactly one blank line: %q", got)
	}
	if !utf8.Valid(got) {
		t.Errorf("piece is not valid UTF-8: %q", got)
	}
	if f := openFence(string(got)); f != "" {
		t.Errorf("piece leaves fence %q open:\n%s", f, got)
	}
	if again := Markdown(m); string(again) != string(got) {
		t.Errorf("not deterministic:\n%s\n---\n%s", got, again)
	}
}

func TestMarkdown(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		turn int
		want string // ´ stands for a backtick
	}{
		{
			name: "string content starting turn 1",
			raw:  `{"role":"user","content":"Hello **world**","id":"a","ts":"2026-11-22T11:25:03.123456Z"}`,
			turn: 1,
			want: "## Turn 1\n\n**user** · 2026-11-22 11:25:03 UTC\n\nHello **world**\n\n",
		},
		{
			name: "continuation has no heading and no time when ts is missing",
			raw:  `{"role":"assistant","content":"Hi."}`,
			want: "**assistant**\n\nHi.\n\n",
		},
		{
			name: "later turn",
			raw:  `{"role":"user","content":"again","ts":"2026-11-22T11:25:03Z"}`,
			turn: 12,
			want: "## Turn 12\n\n**user** · 2026-11-22 11:25:03 UTC\n\nagain\n\n",
		},
		{
			name: "offset time shown in UTC",
			raw:  `{"role":"user","content":"x","ts":"2026-11-22T13:25:03+02:00"}`,
			want: "**user** · 2026-11-22 11:25:03 UTC\n\nx\n\n",
		},
		{
			name: "unparseable time shown as stored, escaped",
			raw:  `{"role":"user","content":"x","ts":"yesterday *noon*"}`,
			want: "**user** · yesterday \\*noon\\*\n\nx\n\n",
		},
		{
			name: "system prompt",
			raw:  `{"role":"system","content":"Be brief."}`,
			want: "**system prompt**\n\nBe brief.\n\n",
		},
		{
			name: "developer is instructions, one line",
			raw:  `{"role":"developer","content":[{"type":"input_text","text":"Rules."}]}`,
			want: "_[context: instructions, 6 bytes]_\n\n",
		},
		{
			name: "odd role escaped",
			raw:  `{"role":"a*b<c>\nd","content":"x"}`,
			want: "**a\\*b\\<c\\> d**\n\nx\n\n",
		},
		{
			name: "missing role",
			raw:  `{"content":"x"}`,
			want: "**message**\n\nx\n\n",
		},
		{
			name: "text block kinds, blank lines trimmed",
			raw:  `{"role":"assistant","content":[{"type":"text","text":"\n\none\n\n\n"},{"type":"output_text","text":"two"},{"type":"input_text","text":"  three"},"four",{"type":"text","text":"  "}]}`,
			want: "**assistant**\n\none\n\ntwo\n\n  three\n\nfour\n\n",
		},
		{
			name: "thinking collapsed",
			raw:  `{"role":"assistant","content":[{"type":"thinking","thinking":"Let me *think*.","signature":"sig"},{"type":"text","text":"Done."}]}`,
			want: "**assistant**\n\n<details><summary>thinking</summary>\n\nLet me *think*.\n\n</details>\n\nDone.\n\n",
		},
		{
			name: "redacted thinking",
			raw:  `{"role":"assistant","content":[{"type":"redacted_thinking","data":"QUJD"}]}`,
			want: "**assistant**\n\n_(redacted thinking)_\n\n",
		},
		{
			name: "reasoning summaries and text",
			raw:  `{"role":"assistant","content":[{"type":"reasoning","summary":[{"type":"summary_text","text":"First."},{"type":"summary_text","text":"Second."}],"text":"Detail."}]}`,
			want: "**assistant**\n\n<details><summary>thinking</summary>\n\nFirst.\n\nSecond.\n\nDetail.\n\n</details>\n\n",
		},
		{
			name: "reasoning encrypted only",
			raw:  `{"role":"assistant","content":[{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA"}]}`,
			want: "**assistant**\n\n_(encrypted thinking)_\n\n",
		},
		{
			name: "tool_use",
			raw:  `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -l","timeout":5}}]}`,
			want: md("**assistant**\n\n**tool call** ´Bash´: ´ls -l´ · ´toolu_1´\n\n´´´json\n{\n  \"command\": \"ls -l\",\n  \"timeout\": 5\n}\n´´´\n\n"),
		},
		{
			name: "tool input keeps key order and reads <, > and & plainly",
			raw:  `{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"Edit","input":{"z":1.50,"a":"x -\u003e y \u0026 \u003cz\u003e"}}]}`,
			want: md("**assistant**\n\n**tool call** ´Edit´ · ´i´\n\n´´´json\n{\n  \"z\": 1.50,\n  \"a\": \"x -> y & <z>\"\n}\n´´´\n\n"),
		},
		{
			name: "function_call with JSON arguments",
			raw:  `{"role":"assistant","content":[{"type":"function_call","name":"exec_command","call_id":"call_1","arguments":"{\"cmd\":\"pwd\"}"}]}`,
			want: md("**assistant**\n\n**tool call** ´exec_command´: ´pwd´ · ´call_1´\n\n´´´json\n{\n  \"cmd\": \"pwd\"\n}\n´´´\n\n"),
		},
		{
			name: "function_call with arguments that are not JSON",
			raw:  `{"role":"assistant","content":[{"type":"function_call","name":"f","call_id":"c","arguments":"[REDACTED len=3]"}]}`,
			want: md("**assistant**\n\n**tool call** ´f´ · ´c´\n\n´´´\n[REDACTED len=3]\n´´´\n\n"),
		},
		{
			name: "function_call with arguments that only start like an object",
			raw:  `{"role":"assistant","content":[{"type":"function_call","name":"f","call_id":"c","arguments":"{\"a\":1}{\"b\":"}]}`,
			want: md("**assistant**\n\n**tool call** ´f´ · ´c´\n\n´´´\n{\"a\":1}{\"b\":\n´´´\n\n"),
		},
		{
			name: "tool_result string, only results labels the message",
			raw:  `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt\nb.txt\n"}],"ts":"2026-01-01T00:00:00Z"}`,
			want: md("**tool result** · 2026-01-01 00:00:00 UTC\n\n**result** · ´toolu_1´\n\n´´´\na.txt\nb.txt\n´´´\n\n"),
		},
		{
			name: "tool_result error with blocks",
			raw:  `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"text","text":"boom"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}`,
			want: md("**tool result**\n\n**result (error)** · ´t´\n\n´´´\nboom\n´´´\n\n[image: image/png, 8 bytes — in messages.jsonl and export.json]\n\n"),
		},
		{
			name: "tool_result without content",
			raw:  `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}`,
			want: md("**tool result**\n\n**result** · ´t´\n\n_(no output)_\n\n"),
		},
		{
			name: "user text beside a tool result stays user",
			raw:  `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"},{"type":"text","text":"next?"}]}`,
			want: md("**user**\n\n**result** · ´t´\n\n´´´\nok\n´´´\n\nnext?\n\n"),
		},
		{
			name: "function_call_output",
			raw:  `{"role":"user","content":[{"type":"function_call_output","call_id":"call_1","output":"/home\n"}]}`,
			want: md("**tool result**\n\n**result** · ´call_1´\n\n´´´\n/home\n´´´\n\n"),
		},
		{
			name: "OpenAI chat tool message",
			raw:  `{"role":"tool","tool_call_id":"call_9","content":"42"}`,
			want: md("**tool result**\n\n**result** · ´call_9´\n\n´´´\n42\n´´´\n\n"),
		},
		{
			name: "OpenAI chat tool_calls",
			raw:  `{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"add","arguments":"{\"a\":1}"}}]}`,
			want: md("**assistant**\n\n**tool call** ´add´ · ´call_9´\n\n´´´json\n{\n  \"a\": 1\n}\n´´´\n\n"),
		},
		{
			name: "images are references, never data",
			raw: `{"role":"user","content":[` +
				`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"QUJDRA=="}},` +
				`{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},` +
				`{"type":"input_image","image_url":"data:image/webp;base64,QUJD"},` +
				`{"type":"input_image","image_url":"https://example.com/b.png"},` +
				`{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lG"}},` +
				`{"type":"input_image","file_id":"file_1"}]}`,
			want: md("**user**\n\n[image: image/jpeg, 4 bytes — in messages.jsonl and export.json]\n\n[image: ´https://example.com/a.png´]\n\n" +
				"[image: image/webp, 3 bytes — in messages.jsonl and export.json]\n\n[image: ´https://example.com/b.png´]\n\n" +
				"[image: image/gif, 3 bytes — in messages.jsonl and export.json]\n\n[image: file ´file_1´]\n\n"),
		},
		{
			name: "unknown block as JSON",
			raw:  `{"role":"assistant","content":[{"type":"future_call","status":"completed"}]}`,
			want: md("**assistant**\n\n´´´json\n{\n  \"type\": \"future_call\",\n  \"status\": \"completed\"\n}\n´´´\n\n"),
		},
		{
			name: "known type missing its field falls back to JSON",
			raw:  `{"role":"assistant","content":[{"type":"text","text":7}]}`,
			want: md("**assistant**\n\n´´´json\n{\n  \"type\": \"text\",\n  \"text\": 7\n}\n´´´\n\n"),
		},
		{
			name: "null content",
			raw:  `{"role":"assistant","content":null}`,
			want: "**assistant**\n\n_(empty)_\n\n",
		},
		{
			name: "empty content array",
			raw:  `{"role":"user","content":[]}`,
			want: "**user**\n\n_(empty)_\n\n",
		},
		{
			name: "object content as JSON",
			raw:  `{"role":"user","content":{"a":1}}`,
			want: md("**user**\n\n´´´json\n{\n  \"a\": 1\n}\n´´´\n\n"),
		},
		{
			name: "trailing newlines collapse to one blank line",
			raw:  `{"role":"user","content":"x\n\n\n\n  \t\n"}`,
			want: "**user**\n\nx\n\n",
		},
		{
			name: "other fields stay out",
			raw:  `{"role":"user","content":"x","id":"0190-secret","model":"m","usage":{"in":1}}`,
			want: "**user**\n\nx\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(tt.raw), Turn: tt.turn}
			got := Markdown(m)
			if string(got) != tt.want {
				t.Errorf("Markdown(%s)\n got: %q\nwant: %q\n%s", tt.raw, got, tt.want, got)
			}
			checkPiece(t, m, got)
		})
	}
}

func TestMarkdownFences(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // ´ stands for a backtick
	}{
		{
			name: "output holding a triple fence gets a longer fence",
			raw:  md(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"´´´go\nx\n´´´"}]}`),
			want: md("**tool result**\n\n**result** · ´t´\n\n´´´´\n´´´go\nx\n´´´\n´´´´\n\n"),
		},
		{
			name: "output holding a quadruple fence",
			raw:  md(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"a ´´´´ b"}]}`),
			want: md("**tool result**\n\n**result** · ´t´\n\n´´´´´\na ´´´´ b\n´´´´´\n\n"),
		},
		{
			name: "tool input holding backticks",
			raw:  md(`{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"w","input":{"s":"´´´"}}]}`),
			want: md("**assistant**\n\n**tool call** ´w´ · ´i´\n\n´´´´json\n{\n  \"s\": \"´´´\"\n}\n´´´´\n\n"),
		},
		{
			name: "tool name holding a backtick",
			raw:  md(`{"role":"assistant","content":[{"type":"tool_use","id":"i","name":"a´b","input":{}}]}`),
			want: md("**assistant**\n\n**tool call** ´´a´b´´ · ´i´\n\n´´´json\n{}\n´´´\n\n"),
		},
		{
			name: "closed fence in text left alone",
			raw:  md(`{"role":"assistant","content":"See:\n\n´´´go\nx := 1\n´´´\n"}`),
			want: md("**assistant**\n\nSee:\n\n´´´go\nx := 1\n´´´\n\n"),
		},
		{
			name: "unclosed fence in text is closed",
			raw:  md(`{"role":"user","content":"´´´´python\nprint(1)\n´´´"}`),
			want: md("**user**\n\n´´´´python\nprint(1)\n´´´\n´´´´\n\n"),
		},
		{
			name: "unclosed tilde fence in thinking is closed inside details",
			raw:  `{"role":"assistant","content":[{"type":"thinking","thinking":"~~~\ncode"}]}`,
			want: "**assistant**\n\n<details><summary>thinking</summary>\n\n~~~\ncode\n~~~\n\n</details>\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(tt.raw)}
			got := Markdown(m)
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			checkPiece(t, m, got)
		})
	}
}

func TestMarkdownUnreadable(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // ´ stands for a backtick
	}{
		{"not JSON", `{"role":"user",`, md("**unreadable message**\n\n´´´\n{\"role\":\"user\",\n´´´\n\n")},
		{"JSON number", `42`, md("**unreadable message**\n\n´´´\n42\n´´´\n\n")},
		{"JSON null", `null`, md("**unreadable message**\n\n´´´\nnull\n´´´\n\n")},
		{"JSON array", `[{"role":"user"}]`, md("**unreadable message**\n\n´´´\n[{\"role\":\"user\"}]\n´´´\n\n")},
		{"empty", ``, md("**unreadable message**\n\n´´´\n´´´\n\n")},
		{"backticks inside", "x ```` y", md("**unreadable message**\n\n´´´´´\nx ´´´´ y\n´´´´´\n\n")},
		{"invalid UTF-8", "\xff{", "**unreadable message**\n\n```\n\uFFFD{\n```\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(tt.raw), Turn: 3}
			got := Markdown(m)
			want := "## Turn 3\n\n" + tt.want
			if string(got) != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
			checkPiece(t, m, got)
		})
	}
}

func TestMarkdownInvalidUTF8InJSON(t *testing.T) {
	// JSON shown verbatim (a tool's input) may carry invalid bytes; the
	// piece must still be valid UTF-8.
	m := Message{Raw: []byte("{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"i\",\"name\":\"n\",\"input\":{\"s\":\"\xff\"}}]}")}
	checkPiece(t, m, Markdown(m))
}

// sequence is a small conversation as a caller would pass it: Turn set on
// each message that starts a turn.
var sequence = []Message{
	{Raw: []byte(`{"role":"system","content":"Be brief.","ts":"2026-11-22T11:25:00Z"}`), Turn: 1},
	{Raw: []byte(`{"role":"user","content":"List files.","ts":"2026-11-22T11:25:01Z"}`)},
	{Raw: []byte(`{"role":"assistant","content":[{"type":"thinking","thinking":"Use ls."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"ts":"2026-11-22T11:25:02Z"}`)},
	{Raw: []byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go\n"}],"ts":"2026-11-22T11:25:03Z"}`)},
	{Raw: []byte("{\"role\":\"assistant\",\"content\":\"One file:\\n\\n```\\na.go\",\"ts\":\"2026-11-22T11:25:04Z\"}")},
	{Raw: []byte(`{"role":"user","content":"Thanks","ts":"2026-11-22T11:26:00Z"}`), Turn: 2},
	{Raw: []byte(`not json`)},
}

const sequenceMarkdown = `## Turn 1

**system prompt** · 2026-11-22 11:25:00 UTC

Be brief.

**user** · 2026-11-22 11:25:01 UTC

List files.

**assistant** · 2026-11-22 11:25:02 UTC

<details><summary>thinking</summary>

Use ls.

</details>

**tool call** ´Bash´: ´ls´ · ´t1´

´´´json
{
  "command": "ls"
}
´´´

**tool result** · 2026-11-22 11:25:03 UTC

**result** · ´t1´

´´´
a.go
´´´

**assistant** · 2026-11-22 11:25:04 UTC

One file:

´´´
a.go
´´´

## Turn 2

**user** · 2026-11-22 11:26:00 UTC

Thanks

**unreadable message**

´´´
not json
´´´

`

func TestConcatenation(t *testing.T) {
	var forward strings.Builder
	for _, m := range sequence {
		forward.Write(Markdown(m))
	}
	if got, want := forward.String(), md(sequenceMarkdown); got != want {
		t.Fatalf("transcript:\n%s\nwant:\n%s", got, want)
	}

	// Rendering in another order, as a byte-range read of the middle of the
	// file would, must give the same pieces: no state between messages.
	pieces := make([][]byte, len(sequence))
	for i := len(sequence) - 1; i >= 0; i-- {
		pieces[i] = Markdown(sequence[i])
	}
	var backward strings.Builder
	for _, p := range pieces {
		backward.Write(p)
	}
	if backward.String() != forward.String() {
		t.Errorf("rendering order changed the bytes")
	}
	if !strings.HasPrefix(forward.String(), "## Turn 1\n\n") || !strings.HasSuffix(forward.String(), "\n\n") {
		t.Errorf("transcript must start with turn 1 and end with a blank line")
	}
	if f := openFence(forward.String()); f != "" {
		t.Errorf("transcript leaves fence %q open", f)
	}
}

func TestHeading(t *testing.T) {
	if got := string(heading(7)); got != "## Turn 7\n\n" {
		t.Errorf("heading(7) = %q", got)
	}
}

// A stored source line that is not a message (role "event") renders as
// nothing, but keeps a turn's heading; a line that continues the previous
// response renders without a second label.
func TestMarkdownEventAndContinues(t *testing.T) {
	if got := Markdown(Message{Raw: []byte(`{"role":"event","content":"","event":"summary","source":{"type":"summary"}}`)}); len(got) != 0 {
		t.Errorf("event piece = %q, want empty", got)
	}
	if got := string(HTML(Message{Raw: []byte(`{"role":"event","content":""}`)})); got != "" {
		t.Errorf("event HTML piece = %q, want empty", got)
	}
	cont := Message{Raw: []byte(`{"role":"assistant","content":[{"type":"text","text":"and more"}],"continues":true}`)}
	if got := string(Markdown(cont)); got != "and more\n\n" {
		t.Errorf("continuing piece = %q, want the text alone", got)
	}
	if got := string(HTML(cont)); strings.Contains(got, "<header>") || !strings.Contains(got, "and more") {
		t.Errorf("continuing HTML piece = %q, want no header", got)
	}
}

// TestMarkdownParts covers what makes a transcript read like the agent's
// own screen: a call's argument on its summary line, failures, to-do
// lists, web searches, reasoning with nothing to read, injected context
// and compactions.
func TestMarkdownParts(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want string // ´ stands for a backtick
	}{
		{
			name: "Read shows the path",
			raw:  `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"/src/main.go"}}]}`,
			want: md("**assistant**\n\n**tool call** ´Read´: ´/src/main.go´ · ´t´\n\n´´´json\n{\n  \"file_path\": \"/src/main.go\"\n}\n´´´\n\n"),
		},
		{
			name: "a multi-line command is one line on the summary, whole below",
			raw:  `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"git commit -m \"$(cat <<'EOF'\nfix\nEOF\n)\""}}]}`,
			want: md("**assistant**\n\n**tool call** ´Bash´: ´git commit -m \"$(cat <<'EOF' fix EOF )\"´ · ´t´\n\n´´´json\n{\n  \"command\": \"git commit -m \\\"$(cat <<'EOF'\\nfix\\nEOF\\n)\\\"\"\n}\n´´´\n\n"),
		},
		{
			name: "Codex shell's argv shows the script",
			raw:  `{"role":"assistant","content":[{"type":"function_call","name":"shell","call_id":"c","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}"}]}`,
			want: md("**assistant**\n\n**tool call** ´shell´: ´ls -la´ · ´c´\n\n´´´json\n{\n  \"command\": [\n    \"bash\",\n    \"-lc\",\n    \"ls -la\"\n  ]\n}\n´´´\n\n"),
		},
		{
			name: "apply_patch shows the files it touches",
			raw:  `{"role":"assistant","content":[{"type":"custom_tool_call","name":"apply_patch","call_id":"c","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b/c.go\n+z\n*** End Patch"}]}`,
			want: md("**assistant**\n\n**tool call** ´apply_patch´: ´a.go, b/c.go´ · ´c´\n\n´´´\n*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b/c.go\n+z\n*** End Patch\n´´´\n\n"),
		},
		{
			name: "local_shell_call is a call with its command",
			raw:  `{"role":"assistant","content":[{"type":"local_shell_call","call_id":"c","status":"completed","action":{"type":"exec","command":["ls","-l"]}}]}`,
			want: md("**assistant**\n\n**tool call** ´local_shell´: ´ls -l´ · ´c´\n\n´´´json\n{\n  \"type\": \"exec\",\n  \"command\": [\n    \"ls\",\n    \"-l\"\n  ]\n}\n´´´\n\n"),
		},
		{
			name: "web_search_call shows its query, not JSON",
			raw:  `{"role":"assistant","content":[{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"goldmark tables"}}]}`,
			want: md("**assistant**\n\n**tool call** ´web_search´: ´goldmark tables´ · ´ws_1´\n\n"),
		},
		{
			name: "web_search_call opening a page, not finished",
			raw:  `{"role":"assistant","content":[{"type":"web_search_call","id":"ws_2","status":"in_progress","action":{"type":"open_page","url":"https://go.dev/doc"}}]}`,
			want: md("**assistant**\n\n**tool call** ´web_search´: ´https://go.dev/doc´ · ´ws_2´\n\n_(in_progress)_\n\n"),
		},
		{
			name: "TodoWrite is a checklist",
			raw:  `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[{"content":"Plan it","status":"completed","activeForm":"Planning"},{"content":"Build *it*","status":"in_progress"},{"content":"Test it","status":"pending"}]}}]}`,
			want: md("**assistant**\n\n**tool call** ´TodoWrite´ · ´t´\n\n- [x] Plan it\n- [ ] **Build \\*it\\*** _(in progress)_\n- [ ] Test it\n\n"),
		},
		{
			name: "update_plan is a checklist after its explanation",
			raw:  `{"role":"assistant","content":[{"type":"function_call","name":"update_plan","call_id":"c","arguments":"{\"explanation\":\"Two steps.\",\"plan\":[{\"step\":\"Read\",\"status\":\"completed\"},{\"step\":\"Fix\",\"status\":\"pending\"}]}"}]}`,
			want: md("**assistant**\n\n**tool call** ´update_plan´ · ´c´\n\nTwo steps.\n\n- [x] Read\n- [ ] Fix\n\n"),
		},
		{
			name: "a TodoWrite list render cannot read stays JSON",
			raw:  `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":["broken"]}}]}`,
			want: md("**assistant**\n\n**tool call** ´TodoWrite´ · ´t´\n\n´´´json\n{\n  \"todos\": [\n    \"broken\"\n  ]\n}\n´´´\n\n"),
		},
		{
			name: "Codex output with a failing exit code in JSON",
			raw:  `{"role":"tool","content":[{"type":"function_call_output","call_id":"c","output":"{\"output\":\"no such file\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.1}}"}]}`,
			want: md("**tool result**\n\n**result (exit code 2)** · ´c´\n\n´´´\nno such file\n´´´\n\n"),
		},
		{
			name: "Codex output with an exit code in text",
			raw:  `{"role":"tool","content":[{"type":"function_call_output","call_id":"c","output":"Exit code: 1\nWall time: 0.2 seconds\nOutput:\nFAIL\n"}]}`,
			want: md("**tool result**\n\n**result (exit code 1)** · ´c´\n\n´´´\nExit code: 1\nWall time: 0.2 seconds\nOutput:\nFAIL\n´´´\n\n"),
		},
		{
			name: "Codex exec_command output that succeeded",
			raw:  `{"role":"tool","content":[{"type":"function_call_output","call_id":"c","output":"Chunk ID: 1\nWall time: 0.05 seconds\nProcess exited with code 0\nOutput:\nok\n"}]}`,
			want: md("**tool result**\n\n**result** · ´c´\n\n´´´\nChunk ID: 1\nWall time: 0.05 seconds\nProcess exited with code 0\nOutput:\nok\n´´´\n\n"),
		},
		{
			name: "apply_patch output that failed",
			raw:  `{"role":"tool","content":[{"type":"custom_tool_call_output","call_id":"c","output":"{\"output\":\"patch rejected\",\"metadata\":{\"exit_code\":1}}"}]}`,
			want: md("**tool result**\n\n**result (exit code 1)** · ´c´\n\n´´´\npatch rejected\n´´´\n\n"),
		},
		{
			name: "Claude thinking kept only as a signature",
			raw:  `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"EqQB"},{"type":"text","text":"Hi."}]}`,
			want: "**assistant**\n\n_(encrypted thinking)_\n\nHi.\n\n",
		},
		{
			name: "Codex reasoning with summaries stays collapsed",
			raw:  `{"role":"assistant","content":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Plan."}],"encrypted_content":"gAAA"}]}`,
			want: "**assistant**\n\n<details><summary>thinking</summary>\n\nPlan.\n\n</details>\n\n",
		},
		{
			name: "injected context of any role is one line",
			raw:  `{"role":"user","context":"environment","content":[{"type":"input_text","text":"` + strings.Repeat("x", 1229) + `"}],"ts":"2026-01-01T00:00:00Z"}`,
			want: "_[context: environment, 1.2 KB]_\n\n",
		},
		{
			name: "a harness's own context kind is escaped",
			raw:  `{"role":"system","context":"*my*\nkind","content":"x"}`,
			want: "_[context: \\*my\\* kind, 1 byte]_\n\n",
		},
		{
			name: "compaction is a marker with its summary collapsed",
			raw:  `{"role":"user","context":"compaction","content":"This session is being continued.\n\n## Summary\n- did a","ts":"2026-01-01T00:00:00Z"}`,
			want: "---\n\n**compaction** · 2026-01-01 00:00:00 UTC\n\n<details><summary>summary, 52 bytes</summary>\n\nThis session is being continued.\n\n## Summary\n- did a\n\n</details>\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Message{Raw: []byte(tt.raw)}
			got := Markdown(m)
			if string(got) != tt.want {
				t.Errorf("Markdown(%s)\n got: %q\nwant: %q\n%s", tt.raw, got, tt.want, got)
			}
			checkPiece(t, m, got)
		})
	}
}

// Context keeps a turn's heading: it belongs to the turn it precedes.
func TestMarkdownContextStartsTurn(t *testing.T) {
	m := Message{Raw: []byte(`{"role":"developer","content":"rules"}`), Turn: 1}
	if got, want := string(Markdown(m)), "## Turn 1\n\n_[context: instructions, 5 bytes]_\n\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMarkdownGolden writes the golden conversation as transcript.md, header
// first, to testdata/markdown, where it can be read. Set
// SESSFS_UPDATE_GOLDEN=1 to rewrite it.
func TestMarkdownGolden(t *testing.T) {
	var b strings.Builder
	b.Write(MarkdownHead(goldenHeader))
	for _, m := range goldenMessages {
		got := Markdown(m)
		checkPiece(t, m, got)
		b.Write(got)
	}
	if f := openFence(b.String()); f != "" {
		t.Errorf("transcript leaves fence %q open", f)
	}
	checkGolden(t, filepath.Join("testdata", "markdown", "sample.md"), b.String())
}

// A note the caller adds: on an event, the event's one line (an
// interruption), else nothing as before; on a message, a line before it
// and its turn's heading (the turn before was cut off). HTML shows the
// same, escaped, and the piece rules hold.
func TestNotes(t *testing.T) {
	ev := Message{Raw: []byte(`{"role":"event","content":"","event":"turn_end","data":{"interrupted":true}}`), Note: "turn interrupted: user *pressed* Esc"}
	got := Markdown(ev)
	if string(got) != "_[turn interrupted: user \\*pressed\\* Esc]_\n\n" {
		t.Errorf("event with a note = %q", got)
	}
	checkPiece(t, ev, got)
	next := Message{Raw: []byte(`{"role":"user","content":"go on"}`), Turn: 3, Note: "turn 2 was interrupted: it has no turn_end"}
	got = Markdown(next)
	if want := "_[turn 2 was interrupted: it has no turn\\_end]_\n\n## Turn 3\n\n**user**\n\ngo on\n\n"; string(got) != want {
		t.Errorf("turn start with a note = %q\nwant %q", got, want)
	}
	checkPiece(t, next, got)
	if h := string(HTML(ev)); h != "<p class=\"mark\">turn interrupted: user *pressed* Esc</p>\n" {
		t.Errorf("HTML event with a note = %q", h)
	}
	ev.Note = "<script>"
	if h := string(HTML(ev)); strings.Contains(h, "<script>") {
		t.Errorf("HTML note not escaped: %q", h)
	}
	if h := string(HTML(next)); !strings.HasPrefix(h, "<p class=\"mark\">turn 2 was interrupted: it has no turn_end</p>\n<h2 id=\"turn-3\">") {
		t.Errorf("HTML turn start with a note = %q", h)
	}
}
