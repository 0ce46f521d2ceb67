package fsnode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/filestore"
)

// fuzzStore is one store for a whole fuzz run (a session per input), with
// no fsync: durability is not what is fuzzed here.
func fuzzStore(f *testing.F) backing.Store {
	st, err := filestore.Open(f.TempDir(), filestore.Options{Sync: filestore.SyncNone, MaxMessage: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	return st
}

// feed writes data to a fresh append handle of s in pieces of the sizes
// splits gives (the kernel's split of writes), then closes it.
func feed(t *testing.T, st backing.Store, s backing.Session, data, splits []byte) []error {
	h := newAppendHandle(New(st, Options{}).fsys, branchRef{s: s})
	var errs []error
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(splits) > 0 {
			n = min(n, 1+int(splits[i%len(splits)]))
		}
		if _, errno := h.Write(context.Background(), data[:n], 0); errno != 0 {
			errs = append(errs, errno)
		}
		data = data[n:]
	}
	if errno := h.Flush(context.Background()); errno != 0 {
		errs = append(errs, errno)
	}
	return errs
}

// count is how many messages s holds.
func count(t *testing.T, s backing.Session) int {
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	return v.Len()
}

// since returns the messages of s from index from on.
func since(t *testing.T, s backing.Session, from int) []backing.Message {
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(from, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// FuzzAppendFraming: valid JSON lines arrive whole and in order however
// the kernel splits the writes; arbitrary bytes never panic, and whatever
// they store is valid messages.
func FuzzAppendFraming(f *testing.F) {
	f.Add([]byte("hello\xffworld\xff"), []byte{0, 3, 200})
	f.Add([]byte("one"), []byte{})
	f.Add([]byte("a\nb\xff{\"c\":1}"), []byte{1})
	st := fuzzStore(f)
	// Two sessions for the whole run: each input's messages are the ones
	// after those already there.
	valid, _, err := st.Create("valid", backing.Meta{})
	if err != nil {
		f.Fatal(err)
	}
	raw, _, err := st.Create("raw", backing.Meta{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data, splits []byte) {
		// Valid messages from the input's pieces.
		var want []string
		var stream bytes.Buffer
		for _, p := range bytes.Split(data, []byte{0xff}) {
			c := strings.ToValidUTF8(string(p), "?")
			want = append(want, c)
			line, _ := json.Marshal(map[string]string{"role": "user", "content": c})
			stream.Write(line)
			stream.WriteByte('\n')
		}
		before := count(t, valid)
		if errs := feed(t, st, valid, stream.Bytes(), splits); len(errs) > 0 {
			t.Fatalf("valid lines refused: %v", errs)
		}
		got := since(t, valid, before)
		if len(got) != len(want) {
			t.Fatalf("%d messages stored, %d sent", len(got), len(want))
		}
		for i, m := range got {
			var x struct{ Content string }
			json.Unmarshal(m.Raw, &x)
			if x.Content != want[i] {
				t.Fatalf("message %d = %q, want %q", i, x.Content, want[i])
			}
		}

		// The raw input as a stream: no panic, only valid messages, and
		// no more messages than lines (text mode: at most one).
		before = count(t, raw)
		feed(t, st, raw, data, splits)
		got = since(t, raw, before)
		if limit := bytes.Count(data, []byte("\n")) + 1; len(got) > limit {
			t.Fatalf("%d messages from %d lines", len(got), limit)
		}
		for _, m := range got {
			if err := backing.ValidateMessage(m.Raw); err != nil {
				t.Fatalf("stored an invalid message %q: %v", m.Raw, err)
			}
		}
		if i := bytes.IndexFunc(data, func(r rune) bool { return !strings.ContainsRune(" \t\r\n", r) }); i >= 0 && data[i] != '{' {
			// Text mode: one message, the input less one trailing newline.
			text := bytes.TrimSuffix(data, []byte("\n"))
			if !utfValid(text) || int64(len(data)) > st.MaxMessage() {
				return
			}
			var x struct{ Content string }
			if len(got) != 1 || json.Unmarshal(got[0].Raw, &x) != nil || x.Content != string(text) {
				t.Fatalf("text %q stored as %v", text, fmt.Sprint(len(got)))
			}
		}
	})
}

func utfValid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }
