package backing

import (
	"fmt"
	"strings"
	"unicode"
)

// The query syntax of search, one for every engine: words (all of them
// must match, in any order), "exact phrases", prefix* (words that start
// so), NOT word or -word (leave out what matches), and OR between two
// terms. Case and punctuation do not matter: foo-bar is the phrase
// "foo bar". ParseQuery reads it; each engine turns the terms into its own
// query language.

// Term is one term of a query.
type Term struct {
	Text   string // the word or the phrase, as typed
	Phrase bool   // written in double quotes
	Prefix bool   // ends in *: the last word may go on
	Not    bool   // matches are left out
	Or     bool   // joined by OR to the term before it that is not Not; else AND
}

// ParseQuery reads a query. Terms with nothing to match (no letter or
// digit) are dropped; ErrInvalid if nothing is left to find.
func ParseQuery(q string) ([]Term, error) {
	var terms []Term
	not, or := false, false
	for rest := strings.TrimSpace(q); rest != ""; rest = strings.TrimLeftFunc(rest, unicode.IsSpace) {
		var t Term
		if strings.HasPrefix(rest, "-") && len(rest) > 1 && !unicode.IsSpace(rune(rest[1])) {
			not, rest = true, rest[1:]
		}
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 { // an unclosed quote runs to the end
				end = len(rest) - 1
			}
			t.Text, t.Phrase, rest = rest[1:1+end], true, rest[min(len(rest), end+2):]
		} else {
			end := strings.IndexFunc(rest, unicode.IsSpace)
			if end < 0 {
				end = len(rest)
			}
			t.Text, rest = rest[:end], rest[end:]
		}
		if !t.Phrase {
			switch {
			case t.Text == "NOT" && !not:
				not = true
				continue
			case t.Text == "OR" && len(terms) > 0 && !not && !or:
				or = true
				continue
			}
		}
		if strings.HasSuffix(t.Text, "*") || strings.HasPrefix(rest, "*") {
			t.Prefix = true
			t.Text = strings.TrimRight(t.Text, "*")
			rest = strings.TrimLeft(rest, "*")
		}
		t.Not, t.Or = not, or && !not
		not, or = false, false
		if strings.IndexFunc(t.Text, isWordRune) < 0 {
			continue
		}
		terms = append(terms, t)
	}
	positive := false
	for _, t := range terms {
		positive = positive || !t.Not
	}
	if !positive {
		return nil, fmt.Errorf("%w: the query %q has no word to find (NOT only leaves out)", ErrInvalid, q)
	}
	return terms, nil
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
