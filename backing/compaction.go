package backing

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Compactions are summaries that stand for the history before them, the
// one place their rule is written (sessfs compact, compaction.json in the
// mount). There are two kinds.
//
// One sessfs makes (Compact) heads a new branch with a typed event, then
// the summary as injected context (so it never starts a turn, and the
// renderings show it as a compaction marker), then copies of the turns it
// kept:
//
//	{"role":"event","content":"","event":"compaction","data":{"summary":"…","boundary_turn":3,"from_branch":"main","from_branch_id":"…","model":"…"}}
//	{"role":"user","context":"compaction","content":"…"}
//
// A harness may append such an event line itself to record a compaction it
// made; a line of this kind whose data is not an object marks nothing.
//
// One imported from an agent's file: a message the importer marked as
// compaction context ("context":"compaction", with its "source_seq"),
// kept in place with the history before it. Its "source" (the agent's own
// line) says which: Claude Code's compact_boundary or
// microcompact_boundary system line, usually followed by its
// isCompactSummary user line (the two are one compaction), or Codex's
// compacted line, whose message is the summary.
const (
	EventCompaction   = "compaction" // the event line's kind
	ContextCompaction = "compaction" // the summary message's context kind, as the importer marks its own
)

// The kinds of Compaction.
const (
	CompactionSessfs   = "sessfs"
	CompactionImported = "imported"
)

// Compaction is one compaction in a branch's history; as JSON, an element
// of compaction.json.
type Compaction struct {
	Kind string `json:"kind"` // CompactionSessfs or CompactionImported
	// Index is its line in the branch (messages.jsonl, 0-based, events
	// counted): the event line, or the imported marker. Visible is how
	// many visible messages come before it; Turn is the turn it is in.
	Index   int       `json:"message"`
	Visible int       `json:"visible"`
	Turn    int       `json:"turn"`
	Time    time.Time `json:"ts,omitzero"` // its line's "ts"
	Summary string    `json:"summary"`
	// BoundaryTurn is the last turn the summary stands for: a turn of
	// FromBranch for a compaction sessfs made (this branch does not hold
	// it), the turn before the marker in this branch for an imported one
	// (its history is right there, before the marker).
	BoundaryTurn int    `json:"boundary_turn"`
	Model        string `json:"model,omitempty"` // the summarizer's, when recorded
	// FromBranch is the branch compacted, by its name then and its id.
	FromBranch   string `json:"from_branch,omitempty"`
	FromBranchID string `json:"from_branch_id,omitempty"`
	// Marker is the agent's own name for an imported compaction's line:
	// compact_boundary, microcompact_boundary, isCompactSummary (a summary
	// with no boundary before it), compacted.
	Marker string `json:"marker,omitempty"`
}

// compactionData is the event line's "data".
type compactionData struct {
	Summary      string `json:"summary"`
	BoundaryTurn int    `json:"boundary_turn"`
	FromBranch   string `json:"from_branch"`
	FromBranchID string `json:"from_branch_id,omitempty"`
	Model        string `json:"model,omitempty"`
}

// CompactionLines are the first lines of a branch that compaction c
// heads: its event line, then the summary as a message (both documented
// above). Only c's Summary, BoundaryTurn, Model and FromBranch(ID) are
// written; the store gives both lines their "id" and "ts".
func CompactionLines(c Compaction) ([][]byte, error) {
	if !utf8.ValidString(c.Summary) || strings.TrimSpace(c.Summary) == "" {
		return nil, Sentencef(ErrInvalid, "a compaction's summary must be text in UTF-8, not empty")
	}
	data, err := json.Marshal(compactionData{c.Summary, c.BoundaryTurn, c.FromBranch, c.FromBranchID, c.Model})
	if err != nil {
		return nil, err
	}
	event := eventLine(EventCompaction, data)
	summary, err := json.Marshal(struct {
		Role    string `json:"role"`
		Context string `json:"context"`
		Content string `json:"content"`
	}{"user", ContextCompaction, c.Summary})
	if err != nil {
		return nil, err
	}
	return [][]byte{event, summary}, nil
}

// Compactions lists the compactions of the branch v shows, ancestry
// resolved, in the order they stand.
func Compactions(v View) ([]Compaction, error) {
	var l CompactionLog
	if err := l.Update(v); err != nil {
		return nil, err
	}
	return l.List(v), nil
}

// CompactionLog is the compactions of one branch, kept up to date as the
// branch grows: finding an imported one reads the messages, so each
// Update reads only those appended since the one before. It is not safe
// for concurrent use.
type CompactionLog struct {
	branch string
	n      int // messages read
	found  []Compaction
}

// Update reads v's messages appended since the last Update. A view of
// another branch, or one shorter than the last, starts over.
func (l *CompactionLog) Update(v View) error {
	if v.Branch().ID != l.branch || v.Len() < l.n {
		*l = CompactionLog{branch: v.Branch().ID}
	}
	for from := l.n; from < v.Len(); {
		end := min(from+readBatch, v.Len())
		msgs, err := v.Read(from, end)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			l.add(v, m.Index, m.Raw)
		}
		from = end
	}
	l.n = v.Len()
	return nil
}

// compactionWord is in every line that can be a compaction: read before
// the line is, so that other lines cost a byte search.
var compactionWord = []byte(`"compaction"`)

func (l *CompactionLog) add(v View, i int, raw []byte) {
	if !bytes.Contains(raw, compactionWord) {
		return
	}
	c, ok := compactionOf(raw)
	if !ok {
		return
	}
	c.Index = i
	// Claude Code's summary right after its boundary, nothing visible
	// between them, completes the boundary's compaction.
	if k := len(l.found) - 1; c.Marker == markerSummary && k >= 0 {
		b := &l.found[k]
		if b.Kind == CompactionImported && b.Summary == "" && strings.HasSuffix(b.Marker, "compact_boundary") &&
			v.VisibleBefore(i) == v.VisibleBefore(b.Index)+1 {
			b.Summary = c.Summary
			return
		}
	}
	l.found = append(l.found, c)
}

// List is the compactions found as of the last Update, placed in v (the
// same branch, as long as then or longer): a message's turn can change as
// the branch grows (context joins the turn a later prompt opens).
func (l *CompactionLog) List(v View) []Compaction {
	out := make([]Compaction, len(l.found))
	for k, c := range l.found {
		c.Visible, c.Turn = v.VisibleBefore(c.Index), v.TurnOf(c.Index)
		if c.Kind == CompactionImported && c.Index > 0 {
			c.BoundaryTurn = v.TurnOf(c.Index - 1)
		}
		out[k] = c
	}
	return out
}

// markerSummary is Claude Code's summary line's marker.
const markerSummary = "isCompactSummary"

// compactionOf reads a stored line as a compaction, without its place:
// a typed event of kind EventCompaction whose data is an object, or an
// imported message marked as compaction context.
func compactionOf(raw []byte) (Compaction, bool) {
	h, _ := headerOf(raw) // a stored line: checked when it was taken
	var c Compaction
	switch k := kindOf(h); {
	case k.Typed && stringOf(h.Event) == EventCompaction:
		c = Compaction{Kind: CompactionSessfs}
		if !EachMember(Members(raw, "data")[0], func(key string, v []byte) {
			switch key {
			case "summary":
				c.Summary = stringOf(v)
			case "boundary_turn":
				c.BoundaryTurn = int(count(v))
			case "model":
				c.Model = stringOf(v)
			case "from_branch":
				c.FromBranch = stringOf(v)
			case "from_branch_id":
				c.FromBranchID = stringOf(v)
			}
		}) {
			return c, false
		}
	case h.Imported && stringOf(h.Context) == ContextCompaction:
		c = Compaction{Kind: CompactionImported, Marker: importedMarker(raw)}
		if c.Marker != "compact_boundary" && c.Marker != "microcompact_boundary" {
			c.Summary = FirstText(h.Content) // a boundary's text is only "Conversation compacted"
		}
	default:
		return c, false
	}
	c.Time, _ = MessageTime(raw)
	return c, true
}

// importedMarker is what the agent's own line (the message's "source")
// says of an imported compaction: Codex's line type, Claude Code's
// system subtype, or its summary flag; "" when it says none of these.
func importedMarker(raw []byte) string {
	f := Members(Members(raw, "source")[0], "type", "subtype", "isCompactSummary")
	typ, subtype, summary := stringOf(f[0]), stringOf(f[1]), string(f[2]) == "true"
	switch {
	case typ == "compacted":
		return typ
	case typ == "system" && (subtype == "compact_boundary" || subtype == "microcompact_boundary"):
		return subtype
	case summary:
		return markerSummary
	}
	return ""
}
