package backing

import "fmt"

// CommonAncestor is how many messages the views of branches a and b (ids)
// share because of their fork points: the length of their common prefix,
// events included, in positions of either view. History is shared only
// through forks, never by equal content: a message copied from one branch
// to another (an append-merge) is not shared history.
//
// It walks both branches up to the root of the session's tree, through
// any depth of forks. Each step up keeps the part of the parent's view the
// child starts with (the child view's Inherited); what a branch keeps of
// a further ancestor is the least of the steps between them. The shared
// prefix is then what both keep of their lowest common ancestor. Branches
// of no common ancestor (damaged data; a session has one root) share 0.
func CommonAncestor(s Session, a, b string) (int, error) {
	ka, err := keptOfAncestors(s, a)
	if err != nil {
		return 0, err
	}
	kb, err := keptOfAncestors(s, b)
	if err != nil {
		return 0, err
	}
	for _, x := range ka {
		for _, y := range kb {
			if x.id == y.id {
				return min(x.kept, y.kept), nil
			}
		}
	}
	return 0, nil
}

// kept is how many messages of branch id's view a descendant starts with.
type kept struct {
	id   string
	kept int
}

// keptOfAncestors lists branch id and its ancestors up to the root, each
// with how much of its view branch id's view holds: all of its own, then
// at most the fork point of every step below an ancestor.
func keptOfAncestors(s Session, id string) ([]kept, error) {
	v, err := s.ViewID(id)
	if err != nil {
		return nil, err
	}
	b := v.Branch()
	out := []kept{{b.ID, v.Len()}}
	seen := map[string]bool{b.ID: true}
	for n := v.Len(); !b.IsDefault(); {
		n = min(n, v.Inherited())
		if seen[b.Parent] {
			return nil, Sentencef(ErrInvalid, "branch %q: its ancestry has a cycle", b.Name)
		}
		seen[b.Parent] = true
		if v, err = s.ViewID(b.Parent); err != nil {
			return nil, fmt.Errorf("branch %q: parent: %w", b.Name, err)
		}
		b = v.Branch()
		out = append(out, kept{b.ID, n})
	}
	return out, nil
}
