package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

func runAppend(args []string) int {
	c := newCLI("append", "[--branch B] [--role R] SESSION (TEXT | -)",
		`Adds messages to a session, all or none.

TEXT is one message {"role": R, "content": TEXT}. With -, standard input is
read to its end: if its first non-blank byte is '{' each non-blank line is
one message (a JSON object with a string "role" and a "content"; other fields
are kept), else all of it is one text message (one trailing newline
stripped). A single invalid line rejects the whole input. An empty or blank
TEXT is refused (exit 2), as is empty or blank standard input (exit 1):
nothing is appended.`)
	branch := c.fs.String("branch", "", "the branch to append to (default: the default branch)")
	role := c.fs.String("role", "user", "the role of a text message")
	rest, code, ok := c.parse(args, 2, 2)
	if !ok {
		return code
	}
	name, arg := rest[0], rest[1]
	// An empty message would show as an empty turn; the mount appends
	// nothing for it, and here it is most likely an unset variable.
	if strings.TrimSpace(arg) == "" {
		return c.usageError("the message is empty or blank; nothing appended")
	}

	// Find the session and branch before reading stdin, so that a typo
	// fails at once instead of after the user typed a message.
	s, err := c.session(name)
	if err != nil {
		return c.fail(err)
	}
	b, err := s.Branch(*branch)
	if err != nil {
		return c.fail(err)
	}

	var msgs [][]byte
	var lineNo []int // lineNo[i] is the input line of msgs[i], in JSON mode
	if arg == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return c.fail(fmt.Errorf("read standard input: %w", err))
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return c.fail(errors.New("standard input is empty or blank; nothing appended"))
		}
		if backing.IsJSONInput(data) {
			if c.fs.Changed("role") {
				return c.usageError("--role applies to text; JSON lines carry their own roles")
			}
			msgs, lineNo = backing.SplitLines(data)
		} else {
			msg, err := backing.TextInput(*role, data)
			if err != nil {
				return c.fail(err)
			}
			msgs = [][]byte{msg}
		}
	} else {
		msg, err := backing.TextMessage(*role, arg)
		if err != nil {
			return c.fail(err)
		}
		msgs = [][]byte{msg}
	}

	// One Append for everything: backing stores all of it or nothing.
	err = s.AppendID(b.ID, msgs)
	var me *backing.MessageError
	switch {
	case errors.As(err, &me) && lineNo != nil:
		return c.fail(fmt.Errorf("line %d: %w", lineNo[me.N], me.Err))
	case errors.As(err, &me):
		return c.fail(me.Err) // one text message: "message 1" says nothing
	case err != nil:
		return c.fail(err)
	}
	return exitOK
}
