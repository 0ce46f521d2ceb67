package backing

import (
	"errors"
	"fmt"
	"testing"
)

// The append framing rule: the first non-blank byte decides, JSON lines
// keep their line numbers, text loses one trailing newline.
func TestFraming(t *testing.T) {
	for in, want := range map[string]bool{"": false, " \n\t": false, "\r\n {": true, "hi {": false, "[{}]": false} {
		if got := IsJSONInput([]byte(in)); got != want {
			t.Errorf("IsJSONInput(%q) = %v", in, got)
		}
	}
	lines, nos := SplitLines([]byte("\n{\"a\":1}\r\n  \n {\"b\":2}  \n{\"c\":3}"))
	if got := fmt.Sprintf("%q %v", lines, nos); got != `["{\"a\":1}" "{\"b\":2}" "{\"c\":3}"] [2 4 5]` {
		t.Errorf("SplitLines = %s", got)
	}
	if msg, err := TextInput("user", []byte("two\nlines\n\n")); err != nil || string(msg) != `{"role":"user","content":"two\nlines\n"}` {
		t.Errorf("TextInput = %s, %v", msg, err)
	}
	if _, err := TextInput("user", []byte("bad \xff")); !errors.Is(err, ErrInvalid) {
		t.Errorf("TextInput of invalid UTF-8: %v", err)
	}
}
