package render

import (
	"strings"
	"testing"
)

func TestFence(t *testing.T) {
	tests := []struct{ info, body, want string }{
		{"", "x", md("´´´\nx\n´´´")},
		{"json", "{}\n", md("´´´json\n{}\n´´´")},
		{"", "", md("´´´\n´´´")},
		{"", md("a ´´´ b"), md("´´´´\na ´´´ b\n´´´´")},
		{"", md("´´´´"), md("´´´´´\n´´´´\n´´´´´")},
		{"", "~~~", md("´´´\n~~~\n´´´")},
	}
	for _, tt := range tests {
		if got := fence(tt.info, tt.body); got != tt.want {
			t.Errorf("fence(%q, %q) = %q, want %q", tt.info, tt.body, got, tt.want)
		}
	}
}

func TestInlineCode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Bash", "`Bash`"},
		{"a`b", "``a`b``"},
		{"`x", "`` `x ``"},
		{" x ", "`  x  `"},
		{"a\nb", "`a b`"},
	}
	for _, tt := range tests {
		if got := inlineCode(tt.in); got != tt.want {
			t.Errorf("inlineCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOpenFence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"no fences", ""},
		{md("´´´\nx\n´´´"), ""},
		{md("´´´go\nx"), "```"},
		{md("- a\n\n  ´´´\n  x"), "  ```"},
		// A tab after the marker goes to the next tab stop: the item's
		// content is at column 4, so a fence indented 2 ends the item,
		// and a line at the margin does not end the fence.
		{md("*\t0\n  ´´´\n0"), "  ```"},
		{md("*\t0\n    ´´´\n0"), ""},
		{md("* \n\n  ´´´\n0\n"), "  ```"},           // an item that starts empty ends at a blank line: the fence is outside it
		{md("* \n  ´´´\n0\n"), ""},                  // one that goes on at once holds the fence, which 0 ends
		{md("´´´´\n´´´\nx"), "````"},                // a shorter fence does not close
		{md("´´´\n~~~\n"), "```"},                   // nor a fence of the other kind
		{md("~~~~\nx\n~~~~~ \n"), ""},               // a longer one does
		{md("    ´´´\nx"), ""},                      // indented code, not a fence
		{md("´´´ a´b\n"), ""},                       // backticks in the info: not a fence
		{md("´´´\r\nx\r\n´´´\r\n´´´´\r\n"), "````"}, // CRLF lines
		{md("´´\nx"), ""},
		{md("<pre>\n´´´\n</pre>\n´´´"), "```"},     // in an HTML block, not a fence
		{md("<!-- ´´´ -->\n´´´\nx"), "```"},        // a block that ends on its line
		{md("<!--\n´´´\n-->\n"), ""},               // a fence in a comment
		{md("<!DOCTYPE\n´´´\n"), ""},               // a declaration runs to its ">"
		{md("<!a00\n´´´"), "```"},                  // not one to goldmark: lower case (found by FuzzMarkdown)
		{md("´´´\n<pre>\n´´´\n"), ""},              // no HTML block in a fence
		{md("<prefix>\n´´´"), ""},                  // not a <pre> tag, but a tag alone: HTML to the blank line
		{md("<A>\n´´´\n\n0\n´´´\n"), "```"},        // after the blank line, a fence again
		{md("para\n<A>\n´´´\nx"), "```"},           // a lone tag does not interrupt a paragraph
		{md("para\n<div>\n´´´\nx"), ""},            // a block tag does
		{md("*\n  ´´´\n0\n  ´´´"), "  ```"},        // "0" ends the item and its fence; the next opens
		{md("1. a\n\n   ´´´\n   x\n   ´´´\n"), ""}, // a fence closed inside its item
	}
	for _, tt := range tests {
		if got := openFence(tt.in); got != tt.want {
			t.Errorf("openFence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// trimText drops trailing white space and whole blank lines at the start,
// never the first line's indent; Markdown and HTML both trim with it.
func TestTrimText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{" \t\r\n \n", ""},
		{"text", "text"},
		{"\n\n    code\n\n", "    code"},
		{"  \r\n\t\r\n\tx \r\n", "\tx"},
		{"a\n\n b \n\t", "a\n\n b"},
	}
	for _, tt := range tests {
		if got := trimText(tt.in); got != tt.want {
			t.Errorf("trimText(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got, want := markdownText(tt.in), tt.want; got != want {
			t.Errorf("markdownText(%q) = %q, want %q", tt.in, got, want)
		}
		if got, want := htmlText(tt.in, false), htmlText(tt.want, false); got != want {
			t.Errorf("htmlText(%q) = %q, want %q", tt.in, got, want)
		}
	}
}

// oneLine's shortcut must not change what it returns: control characters
// become spaces, invalid UTF-8 U+FFFD, as strings.Map does.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb", "tab\there", "del\x7f", "bad\xffbyte", "é\u0085", "\x1b[31mred"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, s)
		if got := oneLine(s); got != want {
			t.Fatalf("oneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
