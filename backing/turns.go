package backing

// The turn rule, the one place it is written: a turn starts at a prompt
// the human typed, a user message that is neither injected context nor
// only tool results. Injected context is a message with a "context" field
// (its kind: importers mark what the agent injected, and a harness can
// mark its own) or of role system or developer; it belongs to the turn it
// precedes. Events (EventRole) never start a turn. Every engine indexes
// messages with Classify and places turn starts with TurnStart.

// Kind is what the turn rule needs to know of a message.
type Kind struct {
	Prompt  bool // a prompt the human typed: it opens a turn
	Event   bool // role EventRole: kept, not part of the conversation
	Context bool // injected context: it joins the turn it precedes
	// Typed is an event of a kind, written through sessfs (not imported
	// from an agent's file): what events.jsonl lists and tasks.json,
	// memory.json and checkpoints read (events.go).
	Typed bool
}

// Classify validates a stored line as a message and says what it is, in
// one decode, with the message's own id ("" if it has none).
func Classify(line []byte) (k Kind, id string, err error) {
	h, err := parseHeader(line)
	if err != nil {
		return Kind{}, "", err
	}
	return kindOf(h), stringOf(h.ID), nil
}

// IsPrompt reports whether a stored message opens a turn: the turn rule,
// for a reader outside the store.
func IsPrompt(line []byte) bool {
	k, _, err := Classify(line)
	return err == nil && k.Prompt
}

func kindOf(h header) Kind {
	context := h.Context != nil || h.Role == "system" || h.Role == "developer"
	return Kind{
		Prompt:  h.Role == "user" && !context && !onlyToolResults(h.Content),
		Event:   h.Role == EventRole,
		Context: context,
		Typed:   h.Role == EventRole && FirstByte(h.Event) == '"' && !h.Imported,
	}
}

// TurnStart is where the turn opened by the prompt at i begins: at the
// injected context right before it (instructions, environment, hook
// output: what the agent sent along with the prompt), events in between
// or not. An event never starts a turn, so the heading a rendering puts at
// a turn's start is never on a line that renders as nothing. kind(j) is
// the kind of message j < i.
func TurnStart(i int, kind func(j int) Kind) int {
	start := i
	for j := i - 1; j >= 0; j-- {
		k := kind(j)
		if !k.Context && !k.Event {
			break
		}
		if k.Context {
			start = j
		}
	}
	return start
}
