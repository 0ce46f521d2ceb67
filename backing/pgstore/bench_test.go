package pgstore_test

import (
	"context"
	"testing"

	"github.com/sessfs/sessfs/backing"
	"github.com/sessfs/sessfs/backing/pgstore"
	"github.com/sessfs/sessfs/backing/pgstore/pgtest"
)

var benchMsg = []byte(`{"role":"user","content":"a message of a typical length, about a hundred bytes or so, to append"}`)

// BenchmarkAppend is one AppendID of one message, as a writer through the
// mount makes it.
func BenchmarkAppend(b *testing.B) {
	st := open(b, pgtest.URL(b))
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.AppendID("", [][]byte{benchMsg}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendRetryable is AppendID of a message with an id of its
// writer's: the branch row is locked first, and the id looked for.
func BenchmarkAppendRetryable(b *testing.B) {
	st := open(b, pgtest.URL(b))
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ResetTimer()
	for b.Loop() {
		n++
		m := append([]byte(`{"id":"m`), byte('0'+n%10), byte('0'+n/10%10), byte('0'+n/100%10), byte('0'+n/1000%10), byte('0'+n/10000%10), byte('0'+n/100000%10))
		m = append(m, `",`...)
		m = append(m, benchMsg[1:]...)
		if err := s.AppendID("", [][]byte{m}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlainInsert is the floor: an INSERT of the same bytes into a
// table of the same key, committed, from Go.
func BenchmarkPlainInsert(b *testing.B) {
	st := open(b, pgtest.URL(b))
	ctx := context.Background()
	if _, err := st.Pool().Exec(ctx, `CREATE TABLE plain (k bigint PRIMARY KEY, raw bytea NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ResetTimer()
	for b.Loop() {
		n++
		if _, err := st.Pool().Exec(ctx, `INSERT INTO plain VALUES ($1, $2)`, n, benchMsg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendListening is BenchmarkAppend in a store that keeps rows,
// as a mount opens it: its listener hears every append's notification.
func BenchmarkAppendListening(b *testing.B) {
	st := openWith(b, pgtest.URL(b), pgstore.Options{KeepRows: true})
	s, _, err := st.Create("s", backing.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.AppendID("", [][]byte{benchMsg}); err != nil {
			b.Fatal(err)
		}
	}
}
