package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

func FuzzMarkdown(f *testing.F) {
	for _, m := range sequence {
		f.Add(m.Raw, m.Turn)
	}
	seeds := []string{
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":true}]}`,
		`{"role":"assistant","content":[{"type":"function_call","name":"f","call_id":"c","arguments":"{\"a\":[1,2]}"},{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}]}]}`,
		`{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}`,
		`{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"~~~"}]}`,
		"{\"role\":\"user\",\"content\":\"```` x\\n  ~~~\"}",
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"n","arguments":"[]"}}]}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"TodoWrite","input":{"todos":[{"content":"a","status":"in_progress"}]}},{"type":"web_search_call","id":"w","action":{"type":"find","pattern":"p","url":"u"}}]}`,
		`{"role":"assistant","content":[{"type":"custom_tool_call","name":"apply_patch","call_id":"c","input":"*** Add File: a` + "```" + `\n"},{"type":"thinking","thinking":"","signature":"s"}]}`,
		`{"role":"tool","content":[{"type":"function_call_output","call_id":"c","output":"{\"output\":\"` + "```" + `\",\"metadata\":{\"exit_code\":1}}"}]}`,
		`{"role":"user","context":"compaction","content":"` + "```" + `\nopen"}`,
		`{"role":"developer","context":"a\nb_*","content":"x"}`,
		`{"role":"user","content":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]}`,
		`{"role":"user","content":[[[[[[[[[[[[[[[[[0,0,0,0,0,0,0,0]]]]]]]]]]]]]]]]]}`,
		`[]`,
		``,
		// Fences that only a CommonMark parser tells open from closed.
		"{\"role\":\"assistant\",\"content\":\"```\\na\\n```x\\n~~~\"}",
		"{\"role\":\"assistant\",\"content\":\"~~~~\\na\\n~~~\\n```\"}",
		"{\"role\":\"assistant\",\"content\":\"1. Run:\\n\\n   ```sh\\n   ls\"}",
	}
	for i, s := range seeds {
		f.Add([]byte(s), i%3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, turn int) {
		out := Markdown(Message{Raw: raw, Turn: turn})
		if utf8.Valid(raw) && !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 output for valid UTF-8 input %q: %q", raw, out)
		}
		if !strings.HasSuffix(string(out), "\n\n") {
			t.Fatalf("output does not end with a blank line: %q", out)
		}
		if strings.HasSuffix(string(out), "\n\n\n") {
			t.Fatalf("output ends with more than one blank line: %q", out)
		}
		if f := openFence(string(out)); f != "" {
			t.Fatalf("output leaves fence %q open: %q", f, out)
		}
		checkSelfContained(t, out)
		checkLinear(t, "Markdown", raw, out)
	})
}

// nextPiece stands for whatever piece follows: one plain word, which must
// parse as its own paragraph right where the piece before it ends.
const nextPiece = "NextPieceStartsHere"

// oracle is a plain CommonMark parser, independent of openFence: the
// property below is checked against it, not against the code that closes
// fences.
var oracle = goldmark.New().Parser()

// checkSelfContained checks the per-message contract of the package doc
// with goldmark: after the piece, the next piece renders as its own
// Markdown. The piece followed by a plain paragraph must parse with that
// paragraph as the document's last top-level block, starting exactly where
// the piece ends, so nothing the piece opened (above all a fenced code
// block) is still open. The one exception is the one markdownText
// documents: an HTML block that only ends at a closing marker (an HTML
// comment, <pre>, <script>, …; CommonMark's types 1 to 5) left open by
// text a user or model wrote.
func checkSelfContained(t *testing.T, piece []byte) {
	t.Helper()
	src := append(append([]byte{}, piece...), nextPiece+"\n"...)
	doc := oracle.Parse(text.NewReader(src))
	last := doc.LastChild()
	if p, ok := last.(*ast.Paragraph); ok && p.Lines().Len() == 1 {
		seg := p.Lines().At(0)
		if seg.Start == len(piece) && string(seg.Value(src)) == nextPiece {
			return
		}
	}
	if h, ok := last.(*ast.HTMLBlock); ok && h.HTMLBlockType <= ast.HTMLBlockType5 && !h.HasClosure() {
		return
	}
	t.Fatalf("the piece does not let the next one render on its own: goldmark puts it in %s\npiece: %q",
		holder(doc, src, len(piece)), piece)
}

// holder names the chain of blocks that hold the byte at offset in src,
// outermost first.
func holder(doc ast.Node, src []byte, offset int) string {
	var path []string
	n := doc
	for n != nil {
		var next ast.Node
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Type() == ast.TypeBlock && covers(c, offset) {
				next = c
			}
		}
		if next == nil {
			break
		}
		name := next.Kind().String()
		if f, ok := next.(*ast.FencedCodeBlock); ok && f.Info != nil {
			name += " " + string(f.Info.Segment.Value(src))
		}
		path = append(path, name)
		n = next
	}
	if len(path) == 0 {
		return "no block"
	}
	return strings.Join(path, " > ")
}

// covers reports whether a block's lines, or those of a block inside it,
// reach offset.
func covers(n ast.Node, offset int) bool {
	if l := n.Lines(); l != nil && l.Len() > 0 {
		if l.At(0).Start <= offset+len(nextPiece) && offset <= l.At(l.Len()-1).Stop {
			return true
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Type() == ast.TypeBlock && covers(c, offset) {
			return true
		}
	}
	return false
}
