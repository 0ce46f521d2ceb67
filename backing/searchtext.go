package backing

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"
)

// What search indexes of a message: the text a person reads in it, not
// JSON syntax. Every engine indexes SearchText, so a query finds the same
// messages whatever keeps them.

// skippedKeys hold what no one reads: ids, block types, opaque payloads
// (encrypted reasoning, signatures, base64 images).
var skippedKeys = map[string]bool{
	"id": true, "call_id": true, "tool_use_id": true, "type": true,
	"encrypted_content": true, "signature": true, "data": true, "media_type": true,
}

// SearchText reads a stored message for the index: its role, its time (the
// zero time if it has none) and its text, the string values of its
// content (message text, tool names, commands and their output), one
// paragraph each. An event or a line that is not a message has no text.
func SearchText(line []byte) (role string, ts time.Time, text string) {
	h, err := parseHeader(line)
	if err != nil || h.Role == EventRole {
		return "", time.Time{}, ""
	}
	if s := stringOf(h.TS); s != "" {
		ts, _ = time.Parse(time.RFC3339Nano, s)
	}
	var content any
	if json.Unmarshal(h.Content, &content) != nil {
		return h.Role, ts, ""
	}
	var b strings.Builder
	collectText(&b, content)
	return h.Role, ts, b.String()
}

func collectText(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		// A tool's arguments may come as a JSON document in a string
		// (Codex's function_call): what a person reads is inside.
		if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") {
			var inner any
			if json.Unmarshal([]byte(t), &inner) == nil {
				collectText(b, inner)
				return
			}
		}
		if strings.TrimSpace(v) == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(v)
	case []any:
		for _, e := range v {
			collectText(b, e)
		}
	case map[string]any:
		// Sorted keys: the same message gives the same text each time.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if !skippedKeys[k] {
				collectText(b, v[k])
			}
		}
	}
}
