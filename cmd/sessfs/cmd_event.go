package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sessfs/sessfs/backing"
)

func runEvent(args []string) int {
	c := newCLI("event", "[--branch B] [--data JSON|-] SESSION KIND",
		`Appends a typed event of KIND to branch B of SESSION (default: its default
branch): the line {"role":"event","content":"","event":"KIND","data":DATA},
which writing that line to the branch's append file does as well. Events are
kept in the branch and listed in events.jsonl, never counted as messages nor
shown as conversation. The documented kinds and their data:
  usage           {"input","output","cache_read","cache_write","reasoning": counts,
                   "model": string}: counted in usage.json and sessfs usage
  config_changed  {"model","provider": strings, "settings": object}, one at least
  run_completed   {} or any object
  run_errored     {"error": string, required}: marks its turn interrupted
  turn_end        {"interrupted": true|false, "reason": string}: a branch that
                   writes turn_end has a turn without one marked interrupted
  file_snapshot   {"path": absolute, "turn": from 1, "exists": true|false, "content",
                   "encoding", "size", "sha256", "mode"}: see sessfs snapshot
Other fields are kept; data that breaks its kind's shape is refused. Any
other KIND is kept with any JSON data.`)
	branch := c.fs.String("branch", "", "the branch `B` (default: the default branch)")
	data := c.fs.String("data", "{}", "the event's data, a `JSON` object; - reads it from standard input")
	rest, code, ok := c.parse(args, 2, 2)
	if !ok {
		return code
	}
	raw := []byte(*data)
	if *data == "-" {
		var err error
		if raw, err = io.ReadAll(os.Stdin); err != nil {
			return c.fail(fmt.Errorf("read standard input: %w", err))
		}
	}
	line, err := backing.Event(rest[1], raw)
	if err != nil {
		return c.usageError(errorMessage(err))
	}
	s, err := c.session(rest[0])
	if err != nil {
		return c.fail(err)
	}
	b, err := s.Branch(*branch)
	if err != nil {
		return c.fail(err)
	}
	if err := s.AppendID(b.ID, [][]byte{line}); err != nil {
		return c.fail(err)
	}
	return exitOK
}
