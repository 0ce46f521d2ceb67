package render

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
)

// Version names how this package renders. A store may keep the size of
// each message's piece (backing.SizeKeeper) so that a fresh mount need not
// render a branch to know a file's size; sizes kept by a binary that
// renders differently would make files the wrong size, so they are
// stamped with Fingerprint, which holds Version. Any change of what a
// piece looks like changes the fingerprint by itself when Sample shows
// it (the golden files' conversation, the notes and the secrets below);
// bump Version for a change it does not show.
//
// 2: a line "<!" and a lower-case letter opens no HTML block, as in
// goldmark, so a code fence after it is closed (Sample does not show it).
// 3: a tab after a list item's marker counts to the next tab stop, as in
// goldmark, so a fence that ends the item is closed.
const Version = 3

// Fingerprint names the bytes of the pieces this binary renders: a digest
// of Version and of every format's pieces of Sample and a few more
// messages. Computed once, on first use (a few milliseconds).
var Fingerprint = sync.OnceValue(func() string { return fingerprint(Version, pieces) })

// pieces is m's piece in every format.
func pieces(m Message, first bool) [][]byte {
	md := Markdown(m)
	return [][]byte{md, HTML(m), JSONL(m), JSONMember(m, first), Redact(md)}
}

func fingerprint(version int, pieces func(m Message, first bool) [][]byte) string {
	h := sha256.New()
	h.Write([]byte("render " + strconv.Itoa(version) + "\n"))
	msgs := append(append([]Message(nil), Sample...), fingerprintExtra...)
	for i, m := range msgs {
		for _, piece := range pieces(m, i == 0) {
			h.Write(strconv.AppendInt(nil, int64(len(piece)), 10))
			h.Write(piece)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// fingerprintExtra is what Sample does not show: notes, and secrets to
// mask.
var fingerprintExtra = []Message{
	{Raw: []byte(`{"role":"event","content":"","event":"turn_end","data":{"interrupted":true}}`), Note: "turn interrupted: user pressed Esc"},
	{Turn: 3, Raw: []byte(`{"role":"user","content":"go on"}`), Note: "turn 2 was interrupted: it has no turn_end"},
	{Raw: []byte(`{"role":"assistant","content":"key AKIA` + `IOSFODNN7EXAMPLE and sk-ant-` + `api03-EXAMPLE0123456789abcdefghijklmn-AA"}`)},
	{Raw: []byte(`{"role":"user","content":"cut off`)},
}
