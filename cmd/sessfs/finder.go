package main

import (
	"fmt"

	"github.com/sessfs/sessfs/backing"
)

// finder opens the store with its index: the engine's backing.Finder.
func (c *cli) finder() (backing.Finder, error) {
	st, err := c.open()
	if err != nil {
		return nil, err
	}
	f, ok := st.(backing.Finder)
	if !ok {
		return nil, fmt.Errorf("the store %s keeps no search index", st.Location())
	}
	return f, nil
}
