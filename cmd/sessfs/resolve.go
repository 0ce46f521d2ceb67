package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// resolve is the one place a SESSION argument becomes a session's name:
// every command that takes one (append, show, export, fork, branches,
// branch, rename, rm, archive, unarchive) goes through it, by c.session
// or directly. An active or archived session is named by
//
//   - its exact name, which always wins (a session named "ab" is ab even
//     if "abc" exists);
//   - its exact id;
//   - a prefix of its name or its id that no other session's name or id
//     starts with. When several do, the error lists them, so the user
//     can type more.
//
// Sessions in the trash are not candidates: restore takes a name or id
// of its own (sessfs trash lists them).
func resolve(st backing.Store, arg string) (string, error) {
	_, _, err := st.Lookup(arg)
	if err == nil {
		return arg, nil
	}
	if !errors.Is(err, backing.ErrNotFound) && !errors.Is(err, backing.ErrBadName) {
		return "", err
	}
	notFound := fmt.Errorf("session %q: %w", arg, backing.ErrNotFound)
	if arg == "" {
		return "", notFound
	}
	es, err := backing.CatalogOf(st, backing.CatalogQuery{All: true})
	if err != nil {
		return "", err
	}
	var matches []backing.Entry
	for _, e := range es {
		switch {
		case e.State == backing.StateTrashed || e.Name == "":
		case e.ID == arg:
			return e.Name, nil
		case strings.HasPrefix(e.Name, arg) || strings.HasPrefix(e.ID, arg):
			matches = append(matches, e)
		}
	}
	switch len(matches) {
	case 0:
		return "", notFound
	case 1:
		return matches[0].Name, nil
	}
	return "", ambiguous(arg, matches)
}

// maxCandidates is how many sessions an ambiguous prefix's error names.
const maxCandidates = 8

// ambiguous is the error of a prefix that several sessions match: it
// names them (by name, and by id where the id is what matched), sorted,
// in one line.
func ambiguous(arg string, matches []backing.Entry) error {
	var names []string
	for _, e := range matches {
		if strings.HasPrefix(e.Name, arg) {
			names = append(names, e.Name)
		} else {
			names = append(names, fmt.Sprintf("%s (id %s)", e.Name, e.ID))
		}
	}
	slices.Sort(names)
	more := ""
	if len(names) > maxCandidates {
		more = fmt.Sprintf(" and %d more", len(names)-maxCandidates)
		names = names[:maxCandidates]
	}
	return fmt.Errorf("%q matches %d sessions: %s%s; type more of the name or id", arg, len(matches), strings.Join(names, ", "), more)
}
