package importer

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// codexWriter writes a Codex rollout: a session_meta line with the new
// id first, then response items (and, of a Codex source, its other lines).
type codexWriter struct {
	r       *run
	started bool
	// ordinal numbers the lines when the source did (Codex 0.16x writes
	// "ordinal" on every line): -1 when it did not.
	ordinal int
	ids     callIDs
}

func newCodexWriter(r *run) *codexWriter { return &codexWriter{r: r, ordinal: -1} }

// reuse writes a line of the Codex source again. Its first session_meta
// becomes the new session's; any other line is written as it was, the old
// session's id, wherever a line names it (thread_id, session_id), made
// the new one, and its ordinal renumbered.
func (w *codexWriter) reuse(line []byte, event bool) error {
	m := fields(line)
	if m == nil {
		w.r.left.add("events")
		return nil
	}
	if str(m["type"]) == "session_meta" {
		if w.started {
			// A resumed rollout's copy of the one it came from: the new
			// session has one meta, its own.
			w.r.left.add("events")
			return nil
		}
		if m["ordinal"] != nil {
			w.ordinal = 0
		}
		return w.meta(fields(m["payload"]))
	}
	if err := w.start(); err != nil {
		return err
	}
	if old := w.r.origin.ID; old != "" {
		line = bytes.ReplaceAll(line, quote(old), quote(w.r.id))
		m = fields(line)
	}
	if m["ordinal"] != nil && w.ordinal >= 0 {
		w.ordinal++
		m["ordinal"] = json.RawMessage(strconv.Itoa(w.ordinal))
	}
	return w.r.writeLine(m)
}

// start writes the session_meta of a session whose first line was not
// one (made in sessfs, or by another agent).
func (w *codexWriter) start() error {
	if w.started {
		return nil
	}
	return w.meta(nil)
}

// meta writes the session_meta line: base (the source's own payload, or
// nil) with the new id, time and cwd, and forked_from_id naming the Codex
// session it came from, if it did.
func (w *codexWriter) meta(base map[string]json.RawMessage) error {
	w.started = true
	p := map[string]json.RawMessage{
		"originator":  quote("sessfs"),
		"cli_version": quote("0.0.0"),
		"source":      quote("cli"),
	}
	for k, v := range base {
		p[k] = v
	}
	p["id"] = quote(w.r.id)
	if p["session_id"] != nil {
		p["session_id"] = quote(w.r.id)
	}
	p["timestamp"] = quote(w.r.timestamp(""))
	if w.r.cwd != "" {
		p["cwd"] = quote(w.r.cwd)
	}
	delete(p, "forked_from_id")
	if w.r.origin.Format == Codex && w.r.origin.ID != "" {
		p["forked_from_id"] = quote(w.r.origin.ID)
	}
	return w.line("session_meta", "", p)
}

// line writes one {"timestamp","type","payload"} line.
func (w *codexWriter) line(typ, ts string, payload any) error {
	type codexLine struct {
		Timestamp string `json:"timestamp"`
		Ordinal   *int   `json:"ordinal,omitempty"`
		Type      string `json:"type"`
		Payload   any    `json:"payload"`
	}
	l := codexLine{Timestamp: w.r.timestamp(ts), Type: typ, Payload: payload}
	if w.ordinal >= 0 {
		n := w.ordinal
		if typ != "session_meta" {
			w.ordinal++
			n = w.ordinal
		}
		l.Ordinal = &n
	}
	return w.r.writeLine(l)
}

// write writes a message as response items, one a part: text as a
// message of its role, calls as function_call, results as
// function_call_output. A user's text is followed by the user_message
// event Codex writes for a prompt the human typed, so that it reads as a
// prompt (a summary's is not); an assistant's by its agent_message.
func (w *codexWriter) write(role string, parts []part, ts string) error {
	if err := w.start(); err != nil {
		return err
	}
	for i := range parts {
		p := &parts[i]
		w.ids.fix(p, "call_")
		var err error
		switch {
		case p.kind == partText && role == "assistant":
			err = w.item(ts, codexMessageItem{"message", "assistant", []codexText{{"output_text", p.text}}})
			if err == nil {
				err = w.line("event_msg", ts, map[string]any{"type": "agent_message", "message": p.text})
			}
		case p.kind == partText:
			err = w.item(ts, codexMessageItem{"message", "user", []codexText{{"input_text", p.text}}})
			if err == nil && role != roleSummary {
				err = w.line("event_msg", ts, map[string]any{"type": "user_message", "message": p.text,
					"images": []string{}, "local_images": []string{}, "text_elements": []string{}})
			}
		case p.kind == partCall && role == "assistant":
			err = w.item(ts, codexCall{"function_call", p.name, string(p.input), p.id})
		case p.kind == partResult && role != "assistant":
			out := p.text
			if p.failed {
				out = "Error: " + out // Codex's output has no error flag
			}
			err = w.item(ts, codexOutput{"function_call_output", p.id, out})
		default:
			w.r.left.add("tool blocks on the wrong side") // a call in a user's message, a result in the assistant's
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (w *codexWriter) item(ts string, payload any) error {
	return w.line("response_item", ts, payload)
}

// The Responses API's items, their keys in the order Codex writes them.
type (
	codexMessageItem struct {
		Type    string      `json:"type"`
		Role    string      `json:"role"`
		Content []codexText `json:"content"`
	}
	codexText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	codexCall struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
	}
	codexOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
)

// finish writes the meta of an empty branch: Codex needs one to resume.
func (w *codexWriter) finish() error { return w.start() }
