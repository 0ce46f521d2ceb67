package render

import "testing"

func TestUnescapeHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"a -\u003e b"`, `"a -> b"`},
		{`"\u003C\u0026\u003e"`, `"<&>"`},
		{`"\\u003c"`, `"\\u003c"`}, // an escaped backslash, then text
		{`"\u00e9 \n \""`, `"\u00e9 \n \""`},
		{`"\u003`, `"\u003`},
		{`\`, `\`},
	}
	for _, tt := range tests {
		if got := string(unescapeHTML([]byte(tt.in))); got != tt.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	// Without "\u00" there is nothing to unescape, and nothing is copied.
	in := []byte(`{"a": "\u2028 \\ \n x"}`)
	if got := unescapeHTML(in); &got[0] != &in[0] || string(got) != string(in) {
		t.Errorf("unescapeHTML(%s) = %s, a copy", in, got)
	}
}
