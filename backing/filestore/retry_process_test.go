package filestore_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Two processes append the same 300 messages, with the same ids, at once,
// as a writer and its retry would: each message is stored once, in order.
func TestRetryTwoProcesses(t *testing.T) {
	const count = 300
	st, s := newStore(t, "shared")
	var as []appender
	for range 2 {
		as = append(as, startAppender(t, envAppender+"=1", envIDs+"=1", envStore+"="+st.Root(),
			envSession+"=shared", envWriter+"=0", envCount+"="+fmt.Sprint(count)))
	}
	for _, a := range as {
		a.gate.Close()
	}
	for i, a := range as {
		if err := a.cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v: %s", i, err, a.stderr)
		}
	}
	v, err := s.ViewID("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := v.Read(0, v.Len())
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for i := range count {
		want = append(want, fmt.Sprintf("w0-%d", i))
	}
	for _, m := range msgs {
		var x struct{ ID string }
		json.Unmarshal(m.Raw, &x)
		got = append(got, x.ID)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d messages stored, want %d, each once and in order", len(got), count)
	}
}
