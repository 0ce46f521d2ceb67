package render

import (
	"strings"
	"testing"
)

func TestKeyArg(t *testing.T) {
	tests := []struct {
		name, input, text, want string
	}{
		{"Bash", `{"command":"go test ./...","description":"Test"}`, "", "go test ./..."},
		{"Read", `{"file_path":"/a/b.go","limit":10}`, "", "/a/b.go"},
		{"Edit", `{"file_path":"/a/b.go","old_string":"x","new_string":"y"}`, "", "/a/b.go"},
		{"Write", `{"file_path":"/a/c.go","content":"package c"}`, "", "/a/c.go"},
		{"MultiEdit", `{"file_path":"/a/d.go","edits":[]}`, "", "/a/d.go"},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb","new_source":"x"}`, "", "/n.ipynb"},
		{"Glob", `{"pattern":"**/*.go","path":"/src"}`, "", "**/*.go"},
		{"Grep", `{"pattern":"func main","path":"/src","output_mode":"content"}`, "", "func main"},
		{"WebSearch", `{"query":"goldmark gfm"}`, "", "goldmark gfm"},
		{"WebFetch", `{"url":"https://go.dev","prompt":"summarise"}`, "", "https://go.dev"},
		{"Task", `{"description":"Find the tests","prompt":"Look for…","subagent_type":"Explore"}`, "", "Find the tests"},
		{"Agent", `{"description":"Review","prompt":"…"}`, "", "Review"},
		{"exec_command", `{"cmd":"rg -n TODO","workdir":"/src"}`, "", "rg -n TODO"},
		{"shell", `{"command":["bash","-lc","make test"],"workdir":"/src"}`, "", "make test"},
		{"shell", `{"command":["git","status","--short"]}`, "", "git status --short"},
		{"shell", `{"command":["apply_patch","*** Begin Patch\n*** Delete File: x.go\n*** End Patch"]}`, "", "apply_patch x.go"},
		{"apply_patch", ``, "*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@\n*** Add File: c.go\n*** End Patch", "a.go, b.go, c.go"},
		{"apply_patch", `{"input":"*** Begin Patch\r\n*** Add File: d.go\r\n*** End Patch"}`, "", "d.go"},
		{"mcp__x__y", `{"path":"/etc/hosts"}`, "", "/etc/hosts"},
		{"Unknown", `{"a":1}`, "", ""},
		{"Bash", `{"command":"  "}`, "", ""},
		{"Bash", `{"command":42}`, "", ""},
		{"Bash", `{"command":"` + strings.Repeat("é", 200) + `"}`, "", strings.Repeat("é", maxArg) + "…"},
	}
	for _, tt := range tests {
		in, _ := parseObject([]byte(tt.input))
		if got := keyArg(tt.name, in, tt.text); got != tt.want {
			t.Errorf("keyArg(%s, %s, %q) = %q, want %q", tt.name, tt.input, tt.text, got, tt.want)
		}
	}
}

func TestCommandOutput(t *testing.T) {
	tests := []struct {
		in, text string
		exit     int
		hasExit  bool
	}{
		{`{"output":"ok\n","metadata":{"exit_code":0,"duration_seconds":0.1}}`, "ok\n", 0, true},
		{`{"output":"bad","metadata":{"exit_code":127}}`, "bad", 127, true},
		{`{"output":"x","metadata":{}}`, "x", 0, false},
		{`{"output":1,"metadata":{"exit_code":1}}`, `{"output":1,"metadata":{"exit_code":1}}`, 0, false},
		{"Exit code: 1\nWall time: 3 seconds\nOutput:\nFAIL\n", "Exit code: 1\nWall time: 3 seconds\nOutput:\nFAIL\n", 1, true},
		{"Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\n", "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\n", 2, true},
		// Only the header counts, not what the command printed.
		{"Output:\nExit code: 3\n", "Output:\nExit code: 3\n", 0, false},
		{"plain output", "plain output", 0, false},
		{"", "", 0, false},
	}
	for _, tt := range tests {
		text, exit, has := commandOutput(tt.in)
		if text != tt.text || exit != tt.exit || has != tt.hasExit {
			t.Errorf("commandOutput(%q) = %q, %d, %v; want %q, %d, %v", tt.in, text, exit, has, tt.text, tt.exit, tt.hasExit)
		}
	}
}

func TestTodoList(t *testing.T) {
	in, _ := parseObject([]byte(`{"todos":[{"content":"a","status":"completed","id":"1"},{"content":"b","status":"pending"}]}`))
	list, ok := todoList("TodoWrite", in)
	if !ok || len(list) != 2 || list[0] != (todo{"a", "completed"}) || list[1] != (todo{"b", "pending"}) {
		t.Errorf("TodoWrite list = %v, %v", list, ok)
	}
	for _, bad := range []string{`{"todos":["x"]}`, `{"todos":[{"content":"a"}]}`, `{"todos":{}}`, `{}`} {
		in, _ := parseObject([]byte(bad))
		if _, ok := todoList("TodoWrite", in); ok {
			t.Errorf("todoList accepted %s", bad)
		}
	}
	if _, ok := todoList("Bash", in); ok {
		t.Errorf("a Bash call is no to-do list")
	}
}

func TestContentSize(t *testing.T) {
	tests := []struct {
		content string
		want    int
	}{
		{`"héllo"`, 6},
		{`[{"type":"input_text","text":"abc"},{"type":"text","text":"de"},"f"]`, 6},
		{`[{"type":"image","source":{}}]`, len(`{"type":"image","source":{}}`)},
		{`null`, 0},
		{``, 0},
		{`{"a":1}`, 7},
		{`["{\"text\":\"x\"}",{"text":7},1]`, len(`{"text":"x"}`) + len(`{"text":7}`) + 1},
	}
	for _, tt := range tests {
		if got := contentSize([]byte(tt.content)); got != tt.want {
			t.Errorf("contentSize(%s) = %d, want %d", tt.content, got, tt.want)
		}
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int]string{0: "0 bytes", 1: "1 byte", 1023: "1023 bytes", 1229: "1.2 KB", 12288: "12 KB", 3 << 20: "3.0 MB"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}
