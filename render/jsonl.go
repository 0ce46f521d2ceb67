package render

// JSONL returns the piece of messages.jsonl for one message: the stored line
// verbatim followed by a newline. The result is a fresh slice, so callers may
// keep it while m.Raw's memory is reused.
func JSONL(m Message) []byte {
	return AppendJSONL(make([]byte, 0, len(m.Raw)+1), m)
}

// AppendJSONL appends JSONL(m) to dst and returns the extended slice, as
// the append built-in does.
func AppendJSONL(dst []byte, m Message) []byte {
	return append(append(dst, m.Raw...), '\n')
}
