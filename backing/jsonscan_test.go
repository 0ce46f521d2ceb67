package backing

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonCases are documents ScanJSON must judge as encoding/json does: the
// edges of each token, whitespace in and out of strings, depth.
var jsonCases = []string{
	``, ` `, `{}`, `[]`, `{ }`, `[ ]`, ` {} `, "{}\n", `{"a":1}`, `{"a" : 1}`, `{"a":1,}`, `[1,]`, `[,1]`,
	`{"a"}`, `{"a":}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":[1,{"b":null}],"c":"d"}`,
	`"x"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\u00g0"`, `"\u00"`, `"\x"`, "\"a\tb\"", "\"a\x01\"",
	"\"é ✓ \xff\"", `"abc`, `"`, `"\`, `"\"`,
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `-1.5e10`, `2.`, `1x`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `True`, `nan`,
	`{"a":true,"b":false,"c":null}`, `[true false]`, `{"a":1}}`, `[[]]]`, `[[[`, `{"a":{"b":{}}`,
	"[1,\n 2]", "{\"a\":\r\n\"b\"}",
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth),
	strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1),
}

func TestScanJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonCases {
		checkScanJSON(t, []byte(c))
	}
	// Strings are scanned eight bytes at a time: a byte that ends the
	// plain run at each place of a word, and the bytes around it.
	for _, special := range []string{"\x00", "\x01", "\x1f", " ", "\"", "\\", `\n`, `\u0041`, "\x7f", "é", "\xff", "!", "#", "[", "]"} {
		for at := range 20 {
			s := `"` + strings.Repeat("a", at) + special + strings.Repeat("b", 20-at) + `"`
			checkScanJSON(t, []byte(s))
			checkScanJSON(t, []byte(`{"k":`+s+`}`))
		}
	}
}

func FuzzScanJSON(f *testing.F) {
	for _, c := range jsonCases {
		if len(c) < 1000 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(checkScanJSON)
}

// checkScanJSON fails unless ScanJSON says of b what json.Valid and
// json.Compact say.
func checkScanJSON(t *testing.T, b []byte) {
	valid, compact := ScanJSON(b)
	if want := json.Valid(b); valid != want {
		t.Fatalf("ScanJSON(%.80q) valid = %v, json.Valid = %v", b, valid, want)
	}
	if !valid {
		return
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	if want := bytes.Equal(c.Bytes(), b); compact != want {
		t.Fatalf("ScanJSON(%.80q) compact = %v, json.Compact gives it back unchanged: %v", b, compact, want)
	}
}
