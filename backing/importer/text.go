package importer

import (
	"encoding/json"
	"strings"
)

// firstText is the first non-blank text of a message content: the string
// itself, or the first text block ("text" in Claude Code, "input_text" and
// "output_text" in Codex) of an array. Tool results and images have none.
func firstText(content json.RawMessage) string {
	switch kind(content) {
	case '"':
		return strings.TrimSpace(str(content))
	case '[':
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(content, &blocks) != nil {
			return ""
		}
		for _, b := range blocks {
			switch b.Type {
			case "text", "input_text", "output_text":
				if t := strings.TrimSpace(b.Text); t != "" {
					return t
				}
			}
		}
	}
	return ""
}
