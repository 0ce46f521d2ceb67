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

// BenchmarkAppendMarkdownSmall is BenchmarkMarkdownSmall's message
// appended to a reused buffer, as the mount renders a read: the cost of
// the rendering alone, without the piece's own allocation.
func BenchmarkAppendMarkdownSmall(b *testing.B) {
	m := Message{Raw: []byte(`{"id":"01900000-0000-7000-8000-000000000042","ts":"2026-01-01T00:00:00Z","role":"assistant","content":"message 42 lorem ipsum dolor sit amet"}`)}
	var dst []byte
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendMarkdown(dst[:0], m)
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

// BenchmarkReal renders every message of the real sessions beside the
// repository, in the store's shape, in each format; MB/s is of stored
// JSON rendered, the rate at which a first read or an import renders.
func BenchmarkReal(b *testing.B) {
	msgs, size := realMessages(b)
	formats := []struct {
		name   string
		render func(m Message, first bool) []byte
	}{
		{"markdown", func(m Message, _ bool) []byte { return Markdown(m) }},
		{"html", func(m Message, _ bool) []byte { return HTML(m) }},
		{"json", JSONMember},
		{"redacted", func(m Message, _ bool) []byte { return Redact(Markdown(m)) }},
	}
	for _, f := range formats {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for i, m := range msgs {
					f.render(m, i == 0)
				}
			}
		})
	}
}

// realMessages is every message of the real sessions in the store's shape
// (htmlStoredShape), turns numbered as TestHTMLRealData numbers them, and
// the size of their stored lines.
func realMessages(b *testing.B) ([]Message, int64) {
	var msgs []Message
	var size int64
	for _, name := range realData(b) {
		turn := 0
		for _, line := range htmlReadLines(b, name) {
			s, _, isUser := htmlStoredShape(line)
			if s == nil {
				continue
			}
			m := Message{Raw: s}
			if isUser {
				turn++
				m.Turn = turn
			}
			msgs = append(msgs, m)
			size += int64(len(s))
		}
	}
	return msgs, size
}
