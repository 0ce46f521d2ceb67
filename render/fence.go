package render

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"
)

// fence wraps body in a fenced code block. The fence is one backtick longer
// than the longest run of backticks in body (and at least three), so nothing
// inside can close it early, whatever the body holds. It is built in one
// allocation of its size: it holds every output and input of a session.
func fence(info, body string) string {
	n := max(3, longestRun(body, '`')+1)
	newline := body != "" && !strings.HasSuffix(body, "\n")
	var b strings.Builder
	b.Grow(2*n + len(info) + 1 + len(body) + 1)
	writeRun(&b, '`', n)
	b.WriteString(info)
	b.WriteByte('\n')
	b.WriteString(body)
	if newline {
		b.WriteByte('\n')
	}
	writeRun(&b, '`', n)
	return b.String()
}

// writeRun writes n times c, without the string strings.Repeat makes.
func writeRun(b *strings.Builder, c byte, n int) {
	for range n {
		b.WriteByte(c)
	}
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// inlineCode shows s as a code span on one line, with a delimiter longer than
// any backtick run inside (CommonMark's rule), padded when s touches a
// backtick so the delimiter stays separate.
func inlineCode(s string) string {
	var b strings.Builder
	writeInlineCode(&b, s)
	return b.String()
}

// writeInlineCode writes inlineCode(s) to b, growing it once: a label
// line holds a few code spans.
func writeInlineCode(b *strings.Builder, s string) {
	s = oneLine(s)
	n := longestRun(s, '`') + 1
	// CommonMark strips one space from each side when both sides have one.
	pad := s == "" || s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ')
	b.Grow(2*n + len(s) + 2)
	writeRun(b, '`', n)
	if pad {
		b.WriteByte(' ')
	}
	b.WriteString(s)
	if pad {
		b.WriteByte(' ')
	}
	writeRun(b, '`', n)
}

// oneLine replaces line breaks and other control characters with spaces, so
// a value from the message cannot end a label line early.
func oneLine(s string) string {
	if plainLine(s) { // the common case: nothing to replace, no copy
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// plainLine reports whether oneLine leaves s as it is: no control
// character, and valid UTF-8 (strings.Map puts U+FFFD for invalid bytes).
func plainLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// inlineSpecial are the characters escapeInline backslash-escapes.
const inlineSpecial = "\\`*_[]<>&#!|~"

// escapeInline makes s safe as plain text on a label line: one line, and the
// characters that start emphasis, links, HTML or code backslash-escaped.
func escapeInline(s string) string {
	if plainInline(s) { // the common case: a plain word, no copy
		return s
	}
	s = oneLine(s)
	if !strings.ContainsAny(s, inlineSpecial) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(inlineSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// plainInline reports whether escapeInline leaves s as it is, for the
// common case of ASCII text: no control character and none of
// inlineSpecial. It may report false for text left as it is too.
func plainInline(s string) bool {
	for i := 0; i < len(s); i++ {
		if !inlineSafe[s[i]] {
			return false
		}
	}
	return true
}

// inlineSafe is the ASCII bytes that are neither control characters nor
// in inlineSpecial.
var inlineSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = strings.IndexByte(inlineSpecial, byte(c)) < 0
	}
	return t
}()

// plainOrCode shows simple tokens (a media type, a size) as they are and
// anything else as a code span, so odd values cannot break the line.
func plainOrCode(s string) string {
	if s == "" {
		return inlineCode(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("./+-;=", c) >= 0
		if !ok {
			return inlineCode(s)
		}
	}
	return s
}

// markdownText prepares Markdown written by a user or a model for a piece:
// leading blank lines and trailing white space go (the piece adds its own
// spacing), and a code fence left open is closed, because an open fence
// would swallow every message after it. It returns "" for blank text.
//
// Other constructs that run past a blank line (an unclosed HTML comment or
// <pre>) are left alone: closing them right needs a full CommonMark block
// parser, and they are rare in transcripts, unlike a reply cut off inside a
// code block. openFence does know them, so a fence line inside one is not
// taken for a fence.
func markdownText(s string) string {
	s = trimText(loneCR(s))
	if s == "" {
		return ""
	}
	if closer := openFence(s); closer != "" {
		s += "\n" + closer
	}
	return s
}

// loneCR makes a carriage return that ends a line alone a newline.
// CommonMark takes it for a line ending, goldmark and others do not: to
// them "text\r```" is one line, and the fence on the next line opens
// instead of closing. As a newline, every renderer sees the same lines.
// Text without one, nearly all, is returned as it is, with no copy (a
// strings.Replacer made three allocations to tell).
func loneCR(s string) string {
	i := strings.IndexByte(s, '\r')
	for i >= 0 && i+1 < len(s) && s[i+1] == '\n' {
		j := strings.IndexByte(s[i+2:], '\r')
		if j < 0 {
			return s
		}
		i += 2 + j
	}
	if i < 0 {
		return s
	}
	b := []byte(s)
	loneCRInPlace(b[i:])
	return string(b)
}

// loneCRInPlace is loneCR on b's own bytes.
func loneCRInPlace(b []byte) {
	for i := range b {
		if b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			b[i] = '\n'
		}
	}
}

// appendMarkdownText appends markdownText(string(b)) to dst, copying b
// once, into dst: a text without a fence character, as most are, needs
// no string of its own. It trims before it makes lone carriage returns
// newlines, which gives the same bytes: both are white space that
// trimText drops, and both end a line (FuzzAppendMarkdownText).
func appendMarkdownText(dst, b []byte) []byte {
	start := len(dst)
	dst = append(dst, trimText(b)...)
	t := dst[start:]
	if bytes.IndexByte(t, '\r') >= 0 {
		loneCRInPlace(t)
	}
	// openFence finds no fence without one of these; with one, it reads
	// the text's lines as a string.
	if bytes.IndexByte(t, '`') >= 0 || bytes.IndexByte(t, '~') >= 0 {
		if closer := openFence(string(t)); closer != "" {
			dst = append(append(dst, '\n'), closer...)
		}
	}
	return dst
}

// trimText drops what text written by a user or a model has around it
// that a piece does not show: trailing white space, and whole blank lines
// at the start, keeping the first line's indent, which may make it an
// indented code block. It returns "" for blank text.
//
// It reads bytes, not a cutset (strings.TrimLeft builds one a call): it is
// called on every text of every message.
func trimText[T string | []byte](s T) T {
	end := len(s)
	for end > 0 && isTextSpace(s[end-1]) {
		end--
	}
	start := 0 // after the last line break of the white space that leads
	for i := 0; i < end && isTextSpace(s[i]); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			start = i + 1
		}
	}
	return s[start:end]
}

// isTextSpace reports the white space that trimText drops.
func isTextSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n'
}

// openFence reports the fence that closes a fenced code block left open at
// the end of s, or "" when every fence is closed. It follows CommonMark: a
// fence is three or more backticks or tildes indented at most three spaces;
// it is closed by a line of at least as many of the same character.
//
// The closer is indented as the opening fence is: an opening fence
// indented by a list item's indent ("1. Run:\n\n   ```sh") is inside the
// item, and a closer at the margin would end the item and open a new
// fence instead, which is what a column-0 closer did. Indented the same,
// it closes the fence whether the fence is in the item or not.
func openFence(s string) string {
	if strings.IndexByte(s, '`') < 0 && strings.IndexByte(s, '~') < 0 {
		return "" // no fence at all, as in most text: no need to read lines
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var char byte // the open fence's character; 0 when none is open
	var length, indent int
	htmlEnd := "" // what ends the HTML block open, if one is (see htmlBlock)
	item := 0     // the content indent of the list item the last lines are in; 0: none
	inItem := false
	emptyItem := false // the item's first line has no content yet
	prevBlank := true  // the line before was blank, or there was none
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimLeft(line, " ")
		if emptyItem && t == "" && !inItem {
			// An item may begin with one blank line, not two: one that
			// starts empty and meets a blank line is empty and over.
			item = 0
		}
		emptyItem = false
		if t != "" && len(line)-len(t) < item {
			// A line indented less than the item's content ends the item
			// (no lazy lines in a code block), and a fence open in it.
			item = 0
			if inItem {
				char, inItem = 0, false
			}
		}
		if char == 0 {
			if k, empty := listItem(line); k > 0 {
				item, emptyItem = k, empty
			}
		}
		blank := prevBlank
		prevBlank = t == ""
		if htmlEnd != "" { // a fence line inside an HTML block is its text
			if htmlEnd == blankLine && t == "" || htmlEnd != blankLine && strings.Contains(strings.ToLower(line), htmlEnd) {
				htmlEnd = ""
			}
			continue
		}
		if char == 0 && len(line)-len(t) <= 3 {
			if end := htmlBlock(t); end != "" && !strings.Contains(strings.ToLower(t[1:]), end) {
				htmlEnd = end
				continue
			}
			// Kinds 6 and 7 run to a blank line; 7 (any tag alone on
			// its line) cannot interrupt a paragraph. The regexp runs
			// only on a line that starts as a tag does: it was a tenth
			// of rendering a short message.
			if htmlBlockTag(t) || blank && strings.HasPrefix(t, "<") && htmlTagLine.MatchString(t) && !kind1Tag(t) {
				htmlEnd = blankLine
				continue
			}
		}
		if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
			continue
		}
		c := t[0]
		n := len(t) - len(strings.TrimLeft(t, string(c)))
		if n < 3 {
			continue
		}
		rest := t[n:]
		if char == 0 {
			// A backtick fence's info string may not hold backticks.
			if c == '`' && strings.Contains(rest, "`") {
				continue
			}
			char, length, indent = c, n, len(line)-len(t)
			inItem = item > 0 && indent >= item
		} else if c == char && n >= length && strings.Trim(rest, " \t") == "" {
			char = 0
		}
	}
	if char == 0 {
		return ""
	}
	return strings.Repeat(" ", indent) + strings.Repeat(string(char), length)
}

// listItem is the content indent of the list item line starts (up to 3
// spaces, a bullet - + * or 1-9 digits and . or ), then spaces or the line's
// end), or 0 when line starts none; empty when the line holds nothing
// after the marker.
func listItem(line string) (indent int, empty bool) {
	t := strings.TrimLeft(line, " ")
	i := len(line) - len(t)
	if i > 3 || t == "" {
		return 0, false
	}
	m := 0
	switch {
	case strings.IndexByte("-+*", t[0]) >= 0:
		m = 1
	default:
		for m < len(t) && m < 9 && t[m] >= '0' && t[m] <= '9' {
			m++
		}
		if m == 0 || m == len(t) || (t[m] != '.' && t[m] != ')') {
			return 0, false
		}
		m++
	}
	rest := t[m:]
	if strings.TrimLeft(rest, " \t") == "" {
		return i + m + 1, true // an empty item: its content starts a column on
	}
	if rest[0] != ' ' && rest[0] != '\t' {
		return 0, false
	}
	// The white space after the marker, in columns: a tab goes to the next
	// tab stop, as CommonMark and goldmark count it ("*\t0" has its
	// content at column 4, not 2).
	col := i + m
	for j := 0; j < len(rest) && (rest[j] == ' ' || rest[j] == '\t'); j++ {
		if rest[j] == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	sp := col - (i + m)
	if sp > 4 { // indented code in the item: content one column on
		sp = 1
	}
	return i + m + sp, false
}

// blankLine, as what ends an HTML block, is a blank line: kinds 6 and 7.
const blankLine = "\n"

// htmlBlockTags are the tags of CommonMark's HTML blocks of kind 6.
var htmlBlockTags = strings.Fields(`address article aside base basefont blockquote body caption center
	col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset
	h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol
	optgroup option p param search section summary table tbody td tfoot th thead title tr track ul`)

// htmlBlockTag reports whether a line (its indent removed) starts an HTML
// block of kind 6: < or </, one of htmlBlockTags, then a space, a tab,
// the line's end, > or />.
func htmlBlockTag(t string) bool {
	rest, ok := strings.CutPrefix(t, "<")
	if !ok {
		return false
	}
	rest = strings.ToLower(strings.TrimPrefix(rest, "/"))
	for _, tag := range htmlBlockTags {
		if after, ok := strings.CutPrefix(rest, tag); ok &&
			(after == "" || after[0] == ' ' || after[0] == '\t' || after[0] == '>' || strings.HasPrefix(after, "/>")) {
			return true
		}
	}
	return false
}

// htmlTagLine is a line of one complete open or closing tag and nothing
// else but spaces: an HTML block of kind 7 (CommonMark's attribute syntax,
// simplified: no > inside a quoted value).
var htmlTagLine = regexp.MustCompile(`^(<[A-Za-z][A-Za-z0-9-]*(\s+[A-Za-z_:][A-Za-z0-9_.:-]*(\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>` + "`" + `]+))?)*\s*/?>|</[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*$`)

// kind1Tag reports whether a tag line names script, pre, style or
// textarea, which CommonMark leaves out of kind 7: their opening tag
// starts kind 1 (htmlBlock), and a closing one alone on its line starts
// no HTML block at all, so a fence after it is a fence.
func kind1Tag(t string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(t), "<"), "/")
	end := strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') })
	if end >= 0 {
		name = name[:end]
	}
	switch name {
	case "script", "pre", "style", "textarea":
		return true
	}
	return false
}

// htmlBlock reports what ends the HTML block a line (its indent removed)
// starts, for CommonMark's kinds 1 to 5, which end only at that marker,
// not at a blank line: <script, <pre, <style or <textarea (until its
// closing tag), <!-- (-->), <? (?>), <! and an upper-case letter (>),
// <![CDATA[ (]]>).
// It returns "" for any other line. Lines inside such a block are text,
// fences too, so openFence must not count them.
func htmlBlock(t string) string {
	if !strings.HasPrefix(t, "<") {
		return ""
	}
	low := strings.ToLower(t)
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if rest, ok := strings.CutPrefix(low, "<"+tag); ok && (rest == "" || strings.ContainsRune(" \t>", rune(rest[0]))) {
			return "</" + tag + ">"
		}
	}
	switch {
	case strings.HasPrefix(t, "<!--"):
		return "-->"
	case strings.HasPrefix(t, "<?"):
		return "?>"
	case strings.HasPrefix(t, "<![CDATA["):
		return "]]>"
	case len(t) > 2 && t[1] == '!' && t[2] >= 'A' && t[2] <= 'Z':
		// An upper-case letter, as goldmark has it (CommonMark 0.31
		// takes any letter): "<!a" opens no block there, and a fence
		// after it is one.
		return ">"
	}
	return ""
}
