package render

// JSONL returns the piece of messages.jsonl for one message: the stored line
// verbatim followed by a newline. The result is a fresh slice, so callers may
// keep it while m.Raw's memory is reused.
func JSONL(m Message) []byte {
	out := make([]byte, 0, len(m.Raw)+1)
	out = append(out, m.Raw...)
	return append(out, '\n')
}
