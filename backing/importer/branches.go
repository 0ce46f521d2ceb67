package importer

import (
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
	type place struct {
		branch int // 0: main; i: forks[i-1]
		pos    int // index among that branch's own lines
	}
	own := [][][]byte{nil} // own lines of each branch
	inherited := []int{0}  // messages each branch keeps of its parent
	parent := []int{-1}
	where := map[string]place{}
	hasChild := map[string]bool{}
	cur := 0 // the branch the conversation goes on in
	names := []string{""}
	rewinds, subagents := 0, 0
	for _, line := range lines {
		uuid, up, prompt, side := treeFields(line)
		if side {
			// A subagent's lines: its own branch, forked where the
			// conversation was when it started, and growing apart.
			b, ok := where[up]
			if !ok || up == "" || !strings.HasPrefix(names[b.branch], "subagent-") {
				subagents++
				own = append(own, nil)
				inherited = append(inherited, inherited[cur]+len(own[cur]))
				parent = append(parent, cur)
				names = append(names, fmt.Sprintf("subagent-%d", subagents))
				b = place{branch: len(own) - 1}
			}
			if uuid != "" {
				where[uuid] = place{b.branch, len(own[b.branch])}
			}
			own[b.branch] = append(own[b.branch], line)
			continue
		}
		if up != "" && prompt && hasChild[up] {
			if p, ok := where[up]; ok && p.pos+1 < len(own[p.branch]) {
				// A rewind to p: what p's branch gained after it moves
				// to a new fork, and the conversation goes on in p's branch.
				moved := own[p.branch][p.pos+1:]
				own[p.branch] = own[p.branch][: p.pos+1 : p.pos+1]
				own = append(own, moved)
				inherited = append(inherited, inherited[p.branch]+p.pos+1)
				parent = append(parent, p.branch)
				rewinds++
				names = append(names, fmt.Sprintf("rewind-%d", rewinds))
				f := len(own) - 1
				for i := range parent[:f] { // forks made past the cut follow the moved lines
					if parent[i] == p.branch && inherited[i] > inherited[f] {
						parent[i] = f
					}
				}
				for id, q := range where {
					if q.branch == p.branch && q.pos > p.pos {
						where[id] = place{f, q.pos - p.pos - 1}
					}
				}
				cur = p.branch
			}
		}
		if up != "" {
			hasChild[up] = true
		}
		if p, ok := where[up]; ok && up != "" {
			cur = p.branch // a line goes on in its parent's branch
		}
		if uuid != "" {
			where[uuid] = place{cur, len(own[cur])}
		}
		own[cur] = append(own[cur], line)
	}
	for b := 1; b < len(own); b++ {
		forks = append(forks, Fork{Name: names[b], From: names[parent[b]], At: inherited[b], Lines: own[b]})
	}
	return own[0], forks, nil
}

// treeFields reads a stored line's place in Claude Code's tree: its uuid,
// its parent's, whether it is a prompt the user typed (the store's turn
// rule), and whether it is a sidechain's.
func treeFields(stored []byte) (uuid, parent string, prompt, sidechain bool) {
	src := backing.Members(stored, "source")[0]
	f := backing.Members(src, "uuid", "parentUuid", "logicalParentUuid", "isSidechain")
	uuid, parent = backing.StringOf(f[0]), backing.StringOf(f[1])
	if parent == "" {
		parent = backing.StringOf(f[2]) // a compaction's new root goes on where it left off
	}
	return uuid, parent, backing.KindOf(stored).Prompt, string(f[3]) == "true"
}
