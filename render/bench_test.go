package render

import "testing"

// BenchmarkMarkdownSmall is the shape of most messages: a short string
// content (the row 4 message of make bench).
func BenchmarkMarkdownSmall(b *testing.B) {
	m := Message{Raw: []byte(`{"id":"01900000-0000-7000-8000-000000000042","ts":"2026-01-01T00:00:00Z","role":"assistant","content":"message 42 lorem ipsum dolor sit amet"}`)}
	b.ReportAllocs()
	for b.Loop() {
		Markdown(m)
	}
}

// BenchmarkMarkdownBlocks is an assistant message with text, thinking and
// a tool call, as Claude Code writes them.
func BenchmarkMarkdownBlocks(b *testing.B) {
	m := Message{Raw: []byte(`{"id":"01900000-0000-7000-8000-000000000043","ts":"2026-01-01T00:00:00Z","role":"assistant","content":[{"type":"thinking","thinking":"The user wants the file listed.","signature":"abc"},{"type":"text","text":"Listing it now."},{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls -la /tmp","description":"List"}}]}`)}
	b.ReportAllocs()
	for b.Loop() {
		Markdown(m)
	}
}

// BenchmarkHTMLSmall is BenchmarkMarkdownSmall's message as transcript.html
// shows it.
func BenchmarkHTMLSmall(b *testing.B) {
	m := Message{Raw: []byte(`{"id":"01900000-0000-7000-8000-000000000042","ts":"2026-01-01T00:00:00Z","role":"assistant","content":"message 42 lorem ipsum dolor sit amet"}`)}
	b.ReportAllocs()
	for b.Loop() {
		HTML(m)
	}
}

// BenchmarkHTMLBlocks is BenchmarkMarkdownBlocks's message as
// transcript.html shows it.
func BenchmarkHTMLBlocks(b *testing.B) {
	m := Message{Raw: []byte(`{"id":"01900000-0000-7000-8000-000000000043","ts":"2026-01-01T00:00:00Z","role":"assistant","content":[{"type":"thinking","thinking":"The user wants the file listed.","signature":"abc"},{"type":"text","text":"Listing it now."},{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls -la /tmp","description":"List"}}]}`)}
	b.ReportAllocs()
	for b.Loop() {
		HTML(m)
	}
}
