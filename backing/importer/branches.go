package importer

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sessfs/sessfs/backing"
)

// Fork is a path of a conversation the agent left: what came after an
// earlier point that the user went back to (Claude Code's rewind), kept as
// a branch beside the one the conversation went on in.
type Fork struct {
	Name  string   // rewind-1, rewind-2, … in the order the rewinds happened
	From  string   // the branch it forks from: "" for the default branch, or an earlier Fork's Name
	At    int      // how many messages of From (its whole view) it keeps
	Lines [][]byte // its own store messages, in file order
}

// Branches splits StoreLines into the default branch and the forks.
// Claude Code links lines into a tree by parentUuid; a user's new prompt
// whose parent already has a child is a rewind, and everything its
// branch gained after that parent moves to a fork (rewind-N). Other second
// children are not forks: the lines of parallel tool calls (each result a
// child of its call) and the blocks of one response. A subagent's lines
// (isSidechain) go to a branch of their own (subagent-N), forked where the
// conversation was when the subagent started. Codex rollouts are linear.
func (s *Session) Branches() (main [][]byte, forks []Fork, err error) {
	lines, err := s.StoreLines()
	if err != nil || s.Format != ClaudeCode {
		return lines, nil, err
	}
	var sp splitter
	for _, l := range lines {
		sp.add(nodeOfStored(l))
	}
	branchOf, plans := sp.split()
	own := make([][][]byte, len(plans)+1)
	for i, l := range lines {
		own[branchOf[i]] = append(own[branchOf[i]], l)
	}
	for b, p := range plans {
		forks = append(forks, Fork{Name: p.Name, From: p.From, At: p.At, Lines: own[b+1]})
	}
	return own[0], forks, nil
}

// forkPlan is a Fork without its lines: where it forks from.
type forkPlan struct {
	Name, From string
	At         int
}

// splitter is Branches' walk over a session's store lines, one line at a
// time, keeping each line's place (its index in file order) rather than
// the line: what a streaming import keeps of a source it cannot hold.
type splitter struct {
	own       [][]int32 // each branch's own lines; 0 is the default branch
	inherited []int     // messages each branch keeps of its parent
	parent    []int
	names     []string
	where     map[nodeID]place
	hasChild  map[nodeID]bool
	cur       int // the branch the conversation goes on in
	rewinds   int
	subagents int
	n         int32 // lines added
}

// place is where a line is: its branch (0: the default; i: the i-th
// fork) and its index among that branch's own lines.
type place struct{ branch, pos int32 }

// add places the next store line, by its place in the tree.
func (sp *splitter) add(n treeNode) {
	if sp.own == nil {
		sp.own, sp.inherited, sp.parent, sp.names = [][]int32{nil}, []int{0}, []int{-1}, []string{""}
		sp.where, sp.hasChild = map[nodeID]place{}, map[nodeID]bool{}
	}
	i := sp.n
	sp.n++
	uuid, up := n.uuid, n.parent
	own, where := sp.own, sp.where
	if n.sidechain {
		// A subagent's lines: its own branch, forked where the
		// conversation was when it started, and growing apart.
		b, ok := where[up]
		if !ok || !n.hasParent || !strings.HasPrefix(sp.names[b.branch], "subagent-") {
			sp.subagents++
			sp.own = append(sp.own, nil)
			sp.inherited = append(sp.inherited, sp.inherited[sp.cur]+len(own[sp.cur]))
			sp.parent = append(sp.parent, sp.cur)
			sp.names = append(sp.names, fmt.Sprintf("subagent-%d", sp.subagents))
			b = place{branch: int32(len(sp.own) - 1)}
		}
		if n.hasUUID {
			where[uuid] = place{b.branch, int32(len(sp.own[b.branch]))}
		}
		sp.own[b.branch] = append(sp.own[b.branch], i)
		return
	}
	if n.hasParent && n.prompt && sp.hasChild[up] {
		if p, ok := where[up]; ok && int(p.pos)+1 < len(own[p.branch]) {
			// A rewind to p: what p's branch gained after it moves
			// to a new fork, and the conversation goes on in p's branch.
			moved := own[p.branch][p.pos+1:]
			own[p.branch] = own[p.branch][: p.pos+1 : p.pos+1]
			sp.own = append(sp.own, moved)
			sp.inherited = append(sp.inherited, sp.inherited[p.branch]+int(p.pos)+1)
			sp.parent = append(sp.parent, int(p.branch))
			sp.rewinds++
			sp.names = append(sp.names, fmt.Sprintf("rewind-%d", sp.rewinds))
			f := len(sp.own) - 1
			for j := range sp.parent[:f] { // forks made past the cut follow the moved lines
				if sp.parent[j] == int(p.branch) && sp.inherited[j] > sp.inherited[f] {
					sp.parent[j] = f
				}
			}
			for id, q := range where {
				if q.branch == p.branch && q.pos > p.pos {
					where[id] = place{int32(f), q.pos - p.pos - 1}
				}
			}
			sp.cur = int(p.branch)
		}
	}
	if n.hasParent {
		sp.hasChild[up] = true
	}
	if p, ok := where[up]; ok && n.hasParent {
		sp.cur = int(p.branch) // a line goes on in its parent's branch
	}
	if n.hasUUID {
		where[uuid] = place{int32(sp.cur), int32(len(sp.own[sp.cur]))}
	}
	sp.own[sp.cur] = append(sp.own[sp.cur], i)
}

// split says which branch each line added went to (0: the default; b:
// the b-th fork, plans[b-1]), by its index, and what the forks are.
func (sp *splitter) split() (branchOf []int32, plans []forkPlan) {
	branchOf = make([]int32, sp.n)
	for b := 1; b < len(sp.own); b++ {
		for _, i := range sp.own[b] {
			branchOf[i] = int32(b)
		}
		plans = append(plans, forkPlan{Name: sp.names[b], From: sp.names[sp.parent[b]], At: sp.inherited[b]})
	}
	return branchOf, plans
}

// nodeID is a line's uuid as a key of the tree, in 16 bytes: a session
// of a million lines keeps two maps of them. A uuid not written as Claude
// Code writes them (lower-case hex, the format does not promise it) is
// keyed by its hash instead.
type nodeID [16]byte

func nodeOf(s string) nodeID {
	var id nodeID
	if len(s) == 36 {
		j := 0
		for i := 0; i < 36 && j >= 0; i++ {
			c := s[i]
			switch {
			case i == 8 || i == 13 || i == 18 || i == 23:
				if c != '-' {
					j = -1
				}
				continue
			case c >= '0' && c <= '9':
				c -= '0'
			case c >= 'a' && c <= 'f':
				c -= 'a' - 10
			default:
				j = -1
				continue
			}
			id[j/2] |= c << (4 * (1 - j%2))
			j++
		}
		if j == 32 {
			return id
		}
	}
	sum := sha256.Sum256([]byte(s))
	copy(id[:], sum[:])
	return id
}

// treeNode is a line's place in Claude Code's tree: its uuid, its
// parent's, whether it is a prompt the user typed (the store's turn rule),
// and whether it is a sidechain's.
type treeNode struct {
	uuid, parent       nodeID
	hasUUID, hasParent bool // the uuid, the parent's, is not ""
	prompt, sidechain  bool
}

// nodeOfLine is the place of an agent's line, m its members, and prompt
// whether the message made of it is one: what Claude Code's decoder tells
// the splitter of each line as it makes its message (nodeOfStored reads
// the same back from the message).
func nodeOfLine(m map[string]json.RawMessage, prompt bool) treeNode {
	parent := m["parentUuid"]
	if backing.StringOf(parent) == "" {
		parent = m["logicalParentUuid"] // a compaction's new root goes on where it left off
	}
	return newTreeNode(backing.StringOf(m["uuid"]), backing.StringOf(parent), prompt, string(m["isSidechain"]) == "true")
}

func newTreeNode(uuid, parent string, prompt, sidechain bool) treeNode {
	return treeNode{uuid: nodeOf(uuid), parent: nodeOf(parent), hasUUID: uuid != "", hasParent: parent != "",
		prompt: prompt, sidechain: sidechain}
}

// nodeOfStored reads a stored line's place in the tree.
func nodeOfStored(stored []byte) treeNode {
	src := backing.Members(stored, "source")[0]
	f := backing.Members(src, "uuid", "parentUuid", "logicalParentUuid", "isSidechain")
	uuid, parent := backing.StringOf(f[0]), backing.StringOf(f[1])
	if parent == "" {
		parent = backing.StringOf(f[2]) // a compaction's new root goes on where it left off
	}
	return newTreeNode(uuid, parent, backing.KindOf(stored).Prompt, string(f[3]) == "true")
}
