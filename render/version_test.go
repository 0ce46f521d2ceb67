package render

import (
	"testing"
)

// The fingerprint of kept piece sizes changes with a change of any
// format's piece of any message of Sample (the golden files' conversation,
// so a change that updates a golden file changes it), and with Version.
func TestFingerprintSeesEveryPiece(t *testing.T) {
	base := fingerprint(Version, pieces)
	if Fingerprint() != base || fingerprint(Version, pieces) != base {
		t.Fatal("the fingerprint is not the same twice")
	}
	if fingerprint(Version+1, pieces) == base {
		t.Error("a new Version leaves the fingerprint as it was")
	}
	for format := range len(pieces(Sample[0], true)) {
		for k := range Sample {
			changed := func(m Message, first bool) [][]byte {
				p := pieces(m, first)
				if string(m.Raw) == string(Sample[k].Raw) {
					p[format] = append(append([]byte(nil), p[format]...), ' ')
				}
				return p
			}
			if fingerprint(Version, changed) == base {
				t.Errorf("format %d: a change of message %d's piece leaves the fingerprint as it was", format, k)
			}
		}
	}
}
