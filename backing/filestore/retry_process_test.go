package filestore_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Two processes append the same 300 messages, with the same ids, at once,
// as a writer and its retry would: each message is stored once, in order.
func TestRetryTwoProcesses(t *testing.T) {
	const count = 300
	st, s := newStore(t, "shared")
	var cmds []*exec.Cmd
	var stderrs []*bytes.Buffer
	var gates []interface{ Close() error }
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envAppender+"=1", envIDs+"=1", envStore+"="+st.Root(),
			envSession+"=shared", envWriter+"=0", envCount+"="+fmt.Sprint(count))
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		cmds, stderrs, gates = append(cmds, cmd), append(stderrs, &stderr), append(gates, gate)
	}
	for _, g := range gates {
		g.Close()
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v: %s", i, err, stderrs[i])
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
