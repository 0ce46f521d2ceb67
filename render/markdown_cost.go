package render

import "strings"

// goldmark (v1.8) takes quadratic time on some Markdown well under
// maxMarkdown: 200 KB of "*a_ " takes 45 s, of "~a_ " 100 s, of "![a](" 23
// s, 37,000 link definitions in a row 3 s; lists or quotes nested 50,000
// deep take 4 s; and a table pads every row to its header's width, so a
// wide header over many short rows is a size bomb. markdownCostly tells
// such text beforehand, by measures that bound goldmark's work and that
// real Markdown stays far below (the 200 KB of releases.md in Rust's
// documentation or fs.md in Node's reach a tenth of them), and
// transcript.html shows it as written instead.

// A block is a run of lines between blank lines: no inline element, link
// definition or paragraph spans a blank line, so goldmark's superlinear
// inline work stays inside one.
const (
	// maxMarkupSquare bounds the sum over blocks of the square of the
	// characters that start inline markup (markupChars): the work of
	// matching emphasis and brackets with each other.
	maxMarkupSquare = 1 << 23
	// maxMarkupSpan bounds the sum over blocks of those characters times
	// the block's length: the work of scanning ahead from each for its end.
	maxMarkupSpan = 1 << 27
	// maxNesting bounds the containers (quotes, list items) one line
	// opens.
	maxNesting = 32
	// maxDepthWork bounds the sum over lines of how many containers may
	// be open on the line times its indent: goldmark checks every open
	// container on every line, each against the line's indent.
	maxDepthWork = 1 << 23
	// tableSlack is how many more cells than bytes a table may have:
	// goldmark pads each row to the header's width.
	tableSlack = 1024
)

// markupChars start inline markup: emphasis, strikethrough, links,
// images, raw HTML and autolinks, code spans.
const markupChars = "*_~[]!<`"

// markdownCostly reports whether goldmark's work on s may be more than the
// bounds above allow.
func markdownCostly(s string) bool {
	var (
		square, span, depthWork int
		marks, blockLen         int // of the current block
		columns, cells, size    int // of the current table, columns > 0 in one
		depth                   int // containers that may be open
	)
	endBlock := func() bool {
		square += marks * marks
		span += marks * blockLen
		if columns > 0 && cells > size+tableSlack {
			return true
		}
		marks, blockLen, columns, cells, size = 0, 0, 0, 0, 0
		return square > maxMarkupSquare || span > maxMarkupSpan
	}
	for line := range strings.SplitSeq(s, "\n") {
		if strings.TrimLeft(line, " \t\r") == "" {
			if endBlock() {
				return true
			}
			continue
		}
		opened, indent := containers(line)
		if opened > maxNesting {
			return true
		}
		// A container stays open on a line indented past it (a list item,
		// at least 2 columns a level) or on a lazy continuation line,
		// which only follows a line that is not blank.
		open := opened + min(indent/2, depth)
		if blockLen > 0 {
			open = max(open, depth)
		}
		depth = open
		depthWork += depth * (indent + 1)
		if depthWork > maxDepthWork {
			return true
		}
		blockLen += len(line) + 1
		for i := 0; i < len(line); i++ {
			if strings.IndexByte(markupChars, line[i]) >= 0 {
				marks++
			}
		}
		switch {
		case columns > 0:
			cells += columns
			size += len(line) + 1
		case isDelimiterRow(line):
			columns = strings.Count(strings.Trim(strings.TrimSpace(line), "|"), "|") + 1
			cells, size = columns, len(line)+1
		}
	}
	return endBlock()
}

// containers counts the block quote markers and list item markers that
// start line, and the columns of white space among them (a tab as 4).
func containers(line string) (opened, indent int) {
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ':
			indent++
			i++
		case c == '\t':
			indent += 4
			i++
		case c == '>':
			opened++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			opened++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return opened, indent
			}
			opened++
			i = j + 2
		default:
			return opened, indent
		}
	}
	return opened, indent
}

// isDelimiterRow reports a line that may be a table's delimiter row, such
// as "| --- | :-: |": pipes, dashes, colons and blanks, with a dash and a
// pipe.
func isDelimiterRow(line string) bool {
	return strings.Trim(line, "|-: \t\r") == "" && strings.Contains(line, "-") && strings.Contains(line, "|")
}
