package main

import (
	"strings"
	"testing"
)

// TestNewEphemeralWithoutMount: with no mount of the store up, new
// --ephemeral is refused in one line that says why and what to do, and
// nothing is made in the store.
func TestNewEphemeralWithoutMount(t *testing.T) {
	s := newStore(t)
	s.ok("new", "kept")
	r := s.run("new", "--ephemeral", "--title", "T", "x")
	if r.code != exitFail || strings.Count(r.stderr, "\n") != 1 ||
		!strings.Contains(r.stderr, "no sessfs mount of") || !strings.Contains(r.stderr, "sessfs mount DIR") {
		t.Errorf("new --ephemeral with no mount: %v", r)
	}
	if got := s.ok("ls", "--json"); strings.Count(got, `"name":`) != 1 || !strings.Contains(got, `"name": "kept"`) && !strings.Contains(got, `"name":"kept"`) {
		t.Errorf("sessions after a refused new --ephemeral: %s, want kept alone", got)
	}
}
