package render

import (
	"bytes"
	"fmt"
)

// TreeNode is one branch of a session's fork tree.
type TreeNode struct {
	ID     string
	Parent string // the parent's ID; "" for the root
	Name   string
	// Messages is the branch's visible messages, ancestry resolved;
	// ForkedAt how many of its parent's it starts with (not for a root).
	Messages, ForkedAt int
	Err                string // why Messages is unknown, if it is
}

// Tree draws a fork tree as tree(1) draws folders, one branch a line:
//
//	main: 8 messages
//	├─ t1: 4 messages, forked at 3
//	│  └─ t1b: 5 messages, forked at 4
//	└─ x: 9 messages, forked at 8
//
// Children keep the order of nodes. A node whose parent is not among them
// (or one in a cycle, which damaged data could make) is drawn as a root of
// its own, after the tree, so that every node is shown once.
func Tree(nodes []TreeNode) []byte {
	ids := map[string]bool{}
	for _, n := range nodes {
		ids[n.ID] = true
	}
	kids := map[string][]TreeNode{}
	var roots []TreeNode
	for _, n := range nodes {
		if n.Parent == "" || !ids[n.Parent] {
			roots = append(roots, n)
		} else {
			kids[n.Parent] = append(kids[n.Parent], n)
		}
	}
	var b bytes.Buffer
	drawn := map[string]bool{}
	var draw func(n TreeNode, lead, branch, next string)
	draw = func(n TreeNode, lead, branch, next string) {
		drawn[n.ID] = true
		b.WriteString(lead + branch + treeLabel(n) + "\n")
		ks := kids[n.ID]
		for i, k := range ks {
			if drawn[k.ID] {
				continue
			}
			if i == len(ks)-1 {
				draw(k, lead+next, "└─ ", "   ")
			} else {
				draw(k, lead+next, "├─ ", "│  ")
			}
		}
	}
	for _, r := range roots {
		draw(r, "", "", "")
	}
	for _, n := range nodes { // in a cycle: reached from no root
		if !drawn[n.ID] {
			draw(n, "", "", "")
		}
	}
	return b.Bytes()
}

func treeLabel(n TreeNode) string {
	count := fmt.Sprintf("%d messages", n.Messages)
	switch {
	case n.Err != "":
		count = "unreadable (" + n.Err + ")"
	case n.Messages == 1:
		count = "1 message"
	}
	if n.Parent == "" {
		return n.Name + ": " + count
	}
	return fmt.Sprintf("%s: %s, forked at %d", n.Name, count, n.ForkedAt)
}
