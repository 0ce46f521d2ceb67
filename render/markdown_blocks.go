package render

import (
	"encoding/json"
	"strings"
)

// appendMarkdownBlocks appends body(f, markdownStyle{}) for a message
// whose content is an array of blocks and that shows nothing else (no
// tool_calls, not a tool message), as nearly every message of a real
// session is. Each block is rendered by block, as body renders it, and
// appended as join would join it: with no slice of parts, no joined
// string and no copy of the body, which were a fifth of rendering such a
// message. FuzzMarkdownBody holds it to body.
func appendMarkdownBlocks(dst []byte, blocks []json.RawMessage) []byte {
	w := &walk{st: markdownStyle{}}
	start := len(dst)
	for i, v := range blocks {
		if w.full() {
			dst = appendMarkdownPart(dst, start, w.cutRest(blocks[i:]))
			break
		}
		w.parts++
		dst = appendMarkdownPart(dst, start, w.block(v))
	}
	if len(dst) == start { // as join says of a message with nothing to show
		dst = append(dst, "_(empty)_"...)
	}
	return dst
}

// appendMarkdownPart appends part to the parts after start as join joins
// them: after a blank line when it is not the first, and not at all when
// it is blank.
func appendMarkdownPart(dst []byte, start int, part string) []byte {
	if strings.TrimSpace(part) == "" {
		return dst
	}
	if len(dst) > start {
		dst = append(dst, "\n\n"...)
	}
	return append(dst, part...)
}
