package backing

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []Term
	}{
		{"fsync", []Term{{Text: "fsync"}}},
		{`  group   commit `, []Term{{Text: "group"}, {Text: "commit"}}},
		{`"exact phrase here" other`, []Term{{Text: "exact phrase here", Phrase: true}, {Text: "other"}}},
		{`decor*`, []Term{{Text: "decor", Prefix: true}}},
		{`"python decor"*`, []Term{{Text: "python decor", Phrase: true, Prefix: true}}},
		{`python NOT java -ruby`, []Term{{Text: "python"}, {Text: "java", Not: true}, {Text: "ruby", Not: true}}},
		{`a OR b`, []Term{{Text: "a"}, {Text: "b", Or: true}}},
		{`OR a`, []Term{{Text: "OR"}, {Text: "a"}}},
		{`"NOT" x`, []Term{{Text: "NOT", Phrase: true}, {Text: "x"}}},
		{`foo-bar`, []Term{{Text: "foo-bar"}}},
		{`x - ++ "unclosed phrase`, []Term{{Text: "x"}, {Text: "unclosed phrase", Phrase: true}}},
		{`-`, nil},
	} {
		got, err := ParseQuery(c.q)
		if c.want == nil {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseQuery(%q) = %v, %v; want ErrInvalid", c.q, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseQuery(%q) = %+v, %v; want %+v", c.q, got, err, c.want)
		}
	}
	for _, q := range []string{"", "   ", "NOT x", "-x -y", `"!!"`} {
		if _, err := ParseQuery(q); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseQuery(%q): %v, want ErrInvalid", q, err)
		}
	}
}
