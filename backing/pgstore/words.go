package pgstore

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/sessfs/sessfs/backing"
	"golang.org/x/text/unicode/norm"
)

// Words, as search sees them: made here in Go, not by PostgreSQL's text
// search parser, whose words depend on the server's locale (in the C
// locale it splits é from the word it is in) and which keeps tmp.json or
// /usr/lib whole, where the file engine (SQLite's unicode61) finds tmp,
// json, usr and lib. A word is a run of letters and digits, folded to
// lower case without its diacritics; the tsvector of a text and the
// tsquery of a query are written as literals of those words, so the
// server only stores and matches them.

// word is one word of a text: its bytes [start, end) and its folded form.
type word struct {
	start, end int
	folded     string
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// words splits text into its words.
func words(text string) []word {
	var out []word
	start := -1
	for i, r := range text {
		switch {
		case isWordRune(r) && start < 0:
			start = i
		case !isWordRune(r) && start >= 0:
			out = append(out, word{start, i, fold(text[start:i])})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{start, len(text), fold(text[start:])})
	}
	return out
}

// fold is a word in lower case with its diacritics taken off.
func fold(w string) string {
	d := norm.NFD.String(strings.ToLower(w))
	var b strings.Builder
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return w
	}
	return b.String()
}

// Limits of a tsvector: a lexeme under 2 KiB, positions up to 16383 and
// 256 of them a lexeme, the whole under 1 MiB. A longer text has its
// first words indexed, which is what fits.
const (
	maxLexeme      = 2000
	maxPosition    = 16383
	maxPositions   = 256
	maxVectorBytes = 768 << 10
)

// tsvector is the literal of text's words with their positions, or ""
// when it has none.
func tsvector(text string) string {
	ws := words(text)
	if len(ws) == 0 {
		return ""
	}
	var order []string
	pos := map[string][]int{}
	size := 0
	for i, w := range ws {
		if len(w.folded) > maxLexeme {
			continue
		}
		p, seen := pos[w.folded]
		if !seen {
			if size+len(w.folded)+16 > maxVectorBytes {
				continue
			}
			order = append(order, w.folded)
			size += len(w.folded) + 4
		}
		if len(p) < maxPositions {
			pos[w.folded] = append(p, min(i+1, maxPosition))
			size += 6
		}
	}
	var b strings.Builder
	for i, lex := range order {
		if i > 0 {
			b.WriteByte(' ')
		}
		quoteLexeme(&b, lex)
		b.WriteByte(':')
		for k, p := range pos[lex] {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	}
	return b.String()
}

func quoteLexeme(b *strings.Builder, lex string) {
	b.WriteByte('\'')
	for _, r := range lex {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
}

// tsquery writes terms (backing.ParseQuery) as a tsquery literal: a term
// of several words is the phrase of them (foo-bar is "foo bar"), a prefix
// term's last word matches as a prefix, OR joins a term to the one before,
// AND the rest, and the NOT terms are taken out of the whole.
func tsquery(terms []backing.Term) string {
	var pos, neg []string
	for _, t := range terms {
		ws := words(t.Text)
		if len(ws) == 0 {
			continue
		}
		var b strings.Builder
		b.WriteByte('(')
		for i, w := range ws {
			if i > 0 {
				b.WriteString(" <-> ")
			}
			quoteLexeme(&b, w.folded)
			if t.Prefix && i == len(ws)-1 {
				b.WriteString(":*")
			}
		}
		b.WriteByte(')')
		s := b.String()
		switch {
		case t.Not:
			neg = append(neg, s)
		case t.Or && len(pos) > 0:
			pos[len(pos)-1] += " | " + s
		default:
			pos = append(pos, s)
		}
	}
	q := "((" + strings.Join(pos, ") & (") + "))"
	for _, n := range neg {
		q += " & !" + n
	}
	return q
}

// snippetWords is how many words a snippet shows around the first match.
const snippetWords = 24

// snippet is the part of text around the first word terms match, on one
// line, and where in it the matching words are.
func snippet(text string, terms []backing.Term) (string, [][2]int) {
	exact, prefixes := map[string]bool{}, []string{}
	for _, t := range terms {
		if t.Not {
			continue
		}
		ws := words(t.Text)
		for i, w := range ws {
			if t.Prefix && i == len(ws)-1 {
				prefixes = append(prefixes, w.folded)
			} else {
				exact[w.folded] = true
			}
		}
	}
	matches := func(w word) bool {
		if exact[w.folded] {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(w.folded, p) {
				return true
			}
		}
		return false
	}
	ws := words(text)
	first := -1
	for i, w := range ws {
		if matches(w) {
			first = i
			break
		}
	}
	if len(ws) == 0 {
		return oneLine(text), nil
	}
	from := max(0, first-snippetWords/3)
	to := min(len(ws), from+snippetWords)
	var b strings.Builder
	var marks [][2]int
	if from > 0 {
		b.WriteString("…")
	}
	for i := from; i < to; i++ {
		if i > from {
			b.WriteString(oneLine(text[ws[i-1].end:ws[i].start]))
		}
		w := ws[i]
		if matches(w) {
			marks = append(marks, [2]int{b.Len(), b.Len() + w.end - w.start})
		}
		b.WriteString(text[w.start:w.end])
	}
	if to < len(ws) {
		b.WriteString("…")
	} else {
		b.WriteString(oneLine(text[ws[to-1].end:]))
	}
	return b.String(), marks
}

// oneLine is s with its runs of white space made single spaces.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsSpace) {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
