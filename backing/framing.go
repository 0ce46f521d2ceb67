package backing

import "bytes"

// The append framing rule, in one place for the mount's append file and
// `sessfs append`: input whose first non-blank byte is '{' is JSON lines,
// a message on each non-blank line; other input is one text message, one
// trailing newline dropped (echo adds it); blank input is no message.

// FirstNonBlank is the index of data's first byte that is not a space,
// tab, carriage return or newline, or -1 if there is none yet.
func FirstNonBlank(data []byte) int {
	return bytes.IndexFunc(data, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' })
}

// IsJSONInput reports whether input is JSON lines: its first non-blank
// byte is '{'.
func IsJSONInput(data []byte) bool {
	i := FirstNonBlank(data)
	return i >= 0 && data[i] == '{'
}

// SplitLines returns the non-blank lines of JSON input, trimmed, and for
// each its 1-based line number in data, for errors that point at the line
// the user wrote.
func SplitLines(data []byte) (lines [][]byte, lineNo []int) {
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			lines = append(lines, line)
			lineNo = append(lineNo, n)
		}
	}
	return lines, lineNo
}

// TextInput is the message of text input written as role: the text less
// one trailing newline. Text that is not valid UTF-8 is refused.
func TextInput(role string, data []byte) ([]byte, error) {
	return TextMessage(role, string(bytes.TrimSuffix(data, []byte("\n"))))
}
