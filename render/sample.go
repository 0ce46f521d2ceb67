package render

// Sample is a small conversation with every part a transcript shows: the
// golden files' (testdata) and what Fingerprint renders, so that a change
// of any rendering of it changes the fingerprint of kept piece sizes.
var Sample = []Message{
	{Turn: 1, Raw: []byte(`{"role":"system","content":"You are a coding agent.\nBe brief.","ts":"2026-11-22T11:25:00Z"}`)},
	{Raw: []byte(`{"role":"user","context":"environment","content":"<environment_context>\n  <cwd>/home/me/app</cwd>\n</environment_context>","ts":"2026-11-22T11:25:01Z"}`)},
	{Raw: []byte(`{"role":"user","content":"Why does **main.go** fail? See https://example.com/issue & <this>.","ts":"2026-11-22T11:25:03Z"}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:25:07Z","content":[{"type":"thinking","thinking":"Check the file first."},{"type":"text","text":"Let me look."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/src/main.go"}}]}`)},
	{Raw: []byte(`{"role":"user","ts":"2026-11-22T11:25:08Z","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main\n\nfunc main() {\n\tpanic(\"x < y\")\n}\n"}]}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:25:12Z","content":[{"type":"thinking","thinking":"","signature":"EqQB"},{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"go run .","description":"Run it"}}]}`)},
	{Raw: []byte(`{"role":"user","ts":"2026-11-22T11:25:13Z","content":[{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"panic: x < y\n\ngoroutine 1 [running]:"}]}]}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:25:15Z","content":[{"type":"tool_use","id":"toolu_3","name":"TodoWrite","input":{"todos":[{"content":"Find the panic","status":"completed"},{"content":"Remove it","status":"in_progress"},{"content":"Run the tests","status":"pending"}]}}]}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:25:20Z","content":[{"type":"text","text":"### Cause\n\n` + "`main`" + ` panics **on purpose**:\n\n` + "```go\\npanic(\\\"x < y\\\")\\n```" + `\n\n| file | line | fix |\n|:--|--:|---|\n| main.go | 4 | remove it |\n\nRemove that line. <script>alert(1)</script>"}]}`)},
	{Turn: 2, Raw: []byte(`{"role":"user","ts":"2026-11-22T11:30:00Z","content":[{"type":"input_text","text":"Here is a screenshot."},{"type":"input_image","image_url":"data:image/png;base64,` + testPNG + `"}]}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:30:05Z","content":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Looking at the screenshot."}],"encrypted_content":"gAAAA"},{"type":"function_call","name":"shell","call_id":"call_1","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}"}]}`)},
	{Raw: []byte(`{"role":"tool","ts":"2026-11-22T11:30:06Z","content":[{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"ls: cannot access: No such file\\n\",\"metadata\":{\"exit_code\":2}}"}]}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:30:08Z","content":[{"type":"reasoning","summary":[],"encrypted_content":"gAAAA"},{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"go panic on purpose"}},{"type":"custom_tool_call","name":"apply_patch","call_id":"call_2","input":"*** Begin Patch\n*** Update File: main.go\n@@\n-\tpanic(\"x < y\")\n*** End Patch"}]}`)},
	{Raw: []byte(`{"role":"assistant","ts":"2026-11-22T11:30:09Z","content":[{"type":"future_block","data":{"k":"v"}}]}`)},
	{Raw: []byte(`{"role":"system","context":"compaction","ts":"2026-11-22T11:31:00Z","content":"The user asked why main.go fails.\n\n1. It panics on purpose.\n2. The line was removed."}`)},
	{Raw: []byte(`{"role":"user","content":"cut off`)},
}

// testPNG is a 16×16 checkerboard, for images drawn inline.
const testPNG = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAJElEQVR42mO4YGAARwYJF+AIlzjDINRAjCJk8cGoYTQeBoUGAGB6SBAa6oyiAAAAAElFTkSuQmCC"
