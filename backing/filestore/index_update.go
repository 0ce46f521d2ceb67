package filestore

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/sessfs/sessfs/backing"
)

// How the index follows the store: a session is caught up by reading its
// branches from the checkpoints the index keeps (how many of each
// branch's messages it holds) to their ends, a chunk at a time, in a
// writer (index_writer.go).

// chunkMessages and chunkBytes bound what is read of a log at once.
const (
	chunkMessages = 1024
	chunkBytes    = 8 << 20
)

// catchUpMarked catches up every session marked dirty (index_dirty.go).
func (w *writer) catchUpMarked() error {
	marks, err := w.x.st.dirtyMarks()
	if err != nil {
		return err
	}
	for _, m := range marks {
		w.x.taken++
		file, err := w.x.st.takeMark(m, w.x.taken)
		if err != nil {
			continue // another process took it meanwhile
		}
		if err := w.catchUp(m.id, place{}); err != nil {
			return err
		}
		w.drops = append(w.drops, file)
	}
	return nil
}

// catchUp brings session id's rows in step with the store. p is where its
// name link is, when the caller knows (a session new to the index takes
// its name and state from it; otherwise reconcileNames keeps them).
func (w *writer) catchUp(id string, p place) error {
	s, err := w.x.st.SessionByID(id)
	if errors.Is(err, backing.ErrNotFound) {
		return w.forget(id)
	}
	if err != nil {
		return err
	}
	m, _ := s.Meta() // a meta the store cannot read still lets its messages be found
	if p.name == "" {
		p.name = m.Name
	}
	if p.state == "" {
		p.state = backing.StateActive
		if s.Trashed() {
			p.state = backing.StateTrashed
		}
	}
	if _, err := w.exec(`INSERT OR IGNORE INTO sessions VALUES
		(?, ?, ?, '', '', '', '[]', 0, 0, 0, 0, '')`, id, p.name, p.state); err != nil {
		return err
	}
	branches, err := s.Branches()
	if err != nil {
		return err
	}
	if err := w.forgetBranches(id, branches); err != nil {
		return err
	}
	messages := 0
	for i, b := range branches {
		v, err := s.ViewID(b.ID)
		if err != nil {
			continue // a damaged branch: fsck's to report; the others are found
		}
		if i == 0 {
			messages = v.Visible()
		}
		if err := w.catchUpBranch(id, b, v, m.Model); err != nil {
			return err
		}
	}
	last, _ := s.LastAppend()
	if last.Before(m.Created) {
		last = m.Created
	}
	def := ""
	if len(branches) > 0 {
		def = branches[0].ID
	}
	tags, _ := json.Marshal(m.Tags)
	var oldTitle, oldTags string
	if err := w.scan(`SELECT title, tags FROM sessions WHERE id = ?`, []any{id}, &oldTitle, &oldTags); err != nil {
		return err
	}
	if oldTitle != m.Title || oldTags != string(tags) {
		auto := len(branches) > 0 && autoTitle(s, branches[0].ID, m.Title)
		if err := w.setTitleRow(id, m, auto); err != nil {
			return err
		}
	}
	_, err = w.exec(`UPDATE sessions SET title = ?, agent = ?, project = ?, tags = ?, created = ?,
		last_activity = ?, messages = ?, default_branch = ? WHERE id = ?`,
		m.Title, backing.AgentOf(m), backing.ProjectOf(m), string(tags), unixNano(m.Created),
		unixNano(last), messages, def, id)
	return err
}

// setTitleRow replaces the row a session hit matches (titleText), a row of
// no branch.
func (w *writer) setTitleRow(session string, m backing.Meta, auto bool) error {
	// Looked for first: a delete from the full-text table flushes what it
	// holds in memory, which a build would pay for at every session.
	var old int64
	switch err := w.scan(`SELECT row FROM messages WHERE session = ? AND branch = ''`, []any{session}, &old); {
	case err == nil:
		for _, q := range []string{`DELETE FROM text WHERE rowid = ?`, `DELETE FROM messages WHERE row = ?`} {
			if _, err := w.exec(q, old); err != nil {
				return err
			}
		}
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	body := titleText(m, auto)
	if body == "" {
		return nil
	}
	r, err := w.exec(`INSERT INTO messages(session, branch, pos, turn, role, ts, model, ukey,
		input, output, cache_read, cache_write, reasoning) VALUES (?, '', -1, 0, '', ?, '', '', 0, 0, 0, 0, 0)`,
		session, unixNano(m.Created))
	if err != nil {
		return err
	}
	row, _ := r.LastInsertId()
	_, err = w.exec(`INSERT INTO text(rowid, body) VALUES (?, ?)`, row, body)
	return err
}

// titleText is what a session hit matches: its title and tags, but not a
// title made from the first prompt, which that prompt's own hit finds.
func titleText(m backing.Meta, auto bool) string {
	var lines []string
	if !auto && m.Title != "" {
		lines = append(lines, m.Title)
	}
	return strings.Join(append(lines, m.Tags...), "\n")
}

// autoTitle reports whether title is the one the first prompt of branch
// gives (backing.TitleOf), not one a person or an agent chose.
func autoTitle(s backing.Session, branch, title string) bool {
	v, err := s.ViewID(branch)
	if err != nil || v.Turns() == 0 {
		return false
	}
	from, to, err := v.TurnRange(1)
	if err != nil {
		return false
	}
	msgs, err := v.Read(from, to)
	if err != nil {
		return false
	}
	for _, msg := range msgs {
		if backing.IsPrompt(msg.Raw) {
			return backing.TitleOf(backing.PromptText(msg.Raw), backing.TitleMax) == title
		}
	}
	return false
}

// catchUpBranch indexes the branch's own messages (those after its fork
// point) the index does not hold yet.
// fallback is the model of usage before any message names one.
func (w *writer) catchUpBranch(session string, b backing.Branch, v backing.View, fallback string) error {
	var indexed int
	var model string
	err := w.scan(`SELECT indexed, model FROM branches WHERE id = ?`, []any{b.ID}, &indexed, &model)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		indexed, model = v.Inherited(), fallback
		if _, err := w.exec(`INSERT INTO branches VALUES (?, ?, ?, ?, 0, ?)`, b.ID, session, b.Name, indexed, model); err != nil {
			return err
		}
	case err != nil:
		return err
	case indexed < v.Inherited() || indexed > v.Len():
		// Not the branch the index knew (rewritten by a repair, or an id
		// reused): index it again.
		if err := w.dropBranch(session, b.ID); err != nil {
			return err
		}
		return w.catchUpBranch(session, b, v, fallback)
	}
	if _, err := w.exec(`UPDATE branches SET name = ? WHERE id = ? AND name != ?`, b.Name, b.ID, b.Name); err != nil {
		return err
	}
	tally := backing.NewTally()
	stream := tally.Stream(model)
	for indexed < v.Len() {
		c := w.ahead[chunkKey{b.ID, indexed}]
		if c == nil || c.to > v.Len() {
			if c, err = readChunk(v, indexed); err != nil {
				return err
			}
		}
		if err := w.insertChunk(session, b.ID, c, tally, stream); err != nil {
			return err
		}
		if err := w.grew(c.size); err != nil {
			return err
		}
		indexed = c.to
	}
	return nil
}

// insertChunk stores chunk c of branch and moves its checkpoint past it.
// Its usage goes through stream, into tally, as backing.Tally's rule
// says; the responses the session counted before are seeded from rows.
func (w *writer) insertChunk(session, branch string, c *chunk, tally *backing.Tally, stream *backing.Stream) error {
	spent := backing.ModelUsage{}
	for i, msg := range c.msgs {
		role, ts, text := c.texts[i].role, c.texts[i].ts, c.texts[i].text
		_, _, key := backing.UsageOf(msg.Raw)
		if key != "" && !tally.Seeded(key) {
			if err := w.seed(tally, session, key); err != nil {
				return err
			}
		}
		sp := stream.Add(msg.Raw)
		u := sp.Usage
		if text == "" && u.IsZero() {
			continue
		}
		if role == "" {
			role = backing.EventRole // no text, but usage
		}
		r, err := w.exec(`INSERT INTO messages(session, branch, pos, turn, role, ts, model, ukey,
			input, output, cache_read, cache_write, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			session, branch, msg.Index, msg.Turn, role, unixNano(ts), sp.Model, key,
			u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning)
		if err != nil {
			return err
		}
		if text != "" {
			row, _ := r.LastInsertId()
			if _, err := w.exec(`INSERT INTO text(rowid, body) VALUES (?, ?)`, row, text); err != nil {
				return err
			}
		}
		if !u.IsZero() {
			spent.Add(sp.Model, u)
		}
	}
	if _, err := w.exec(`UPDATE branches SET indexed = ?, bytes = bytes + ?, model = ? WHERE id = ?`,
		c.to, c.size, stream.Model(), branch); err != nil {
		return err
	}
	if _, err := w.exec(`UPDATE sessions SET bytes = bytes + ? WHERE id = ?`, c.size, session); err != nil {
		return err
	}
	return w.addSpent(session, spent, 1)
}

// seedQuery sums what the rows of a session's usage key counted (seed).
// Its last condition is what lets SQLite use the partial index
// messages_ukey: without it SQLite cannot tell that a bound key is not the
// empty string, and it read every message of the store for each key,
// once per response of every session, so that building the index of
// 200 MB of sessions took many minutes.
const seedQuery = `SELECT min(model), coalesce(sum(input), 0), coalesce(sum(output), 0), coalesce(sum(cache_read), 0),
	coalesce(sum(cache_write), 0), coalesce(sum(reasoning), 0) FROM messages WHERE session = ? AND ukey = ? AND ukey != ''`

// seed restores into tally what the session's rows counted under key.
func (w *writer) seed(tally *backing.Tally, session, key string) error {
	var u backing.Usage
	var model sql.NullString
	err := w.scan(seedQuery, []any{session, key}, &model, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Reasoning)
	if err != nil || !model.Valid {
		return err
	}
	tally.Seed(key, model.String, u)
	return nil
}

// addSpent adds (sign 1) or takes away (-1) what models spent to the
// session's totals.
func (w *writer) addSpent(session string, spent backing.ModelUsage, sign int64) error {
	for model, u := range spent {
		if _, err := w.exec(`INSERT INTO spend VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (session, model) DO UPDATE SET input = input + excluded.input,
				output = output + excluded.output, cache_read = cache_read + excluded.cache_read,
				cache_write = cache_write + excluded.cache_write, reasoning = reasoning + excluded.reasoning`,
			session, model, sign*u.Input, sign*u.Output, sign*u.CacheRead, sign*u.CacheWrite, sign*u.Reasoning); err != nil {
			return err
		}
	}
	return nil
}

// dropBranch removes a branch's rows and takes them off its session's
// totals.
func (w *writer) dropBranch(session, branch string) error {
	var size int64
	if err := w.scan(`SELECT bytes FROM branches WHERE id = ?`, []any{branch}, &size); errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	rows, err := w.query(`SELECT model, sum(input), sum(output), sum(cache_read), sum(cache_write), sum(reasoning)
		FROM messages WHERE branch = ? GROUP BY model`, branch)
	if err != nil {
		return err
	}
	spent := backing.ModelUsage{}
	for rows.Next() {
		var model string
		var u backing.Usage
		if err := rows.Scan(&model, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Reasoning); err != nil {
			rows.Close()
			return err
		}
		spent.Add(model, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM text WHERE rowid IN (SELECT row FROM messages WHERE branch = ?)`,
		`DELETE FROM messages WHERE branch = ?`,
		`DELETE FROM branches WHERE id = ?`,
	} {
		if _, err := w.exec(q, branch); err != nil {
			return err
		}
	}
	if _, err := w.exec(`UPDATE sessions SET bytes = bytes - ? WHERE id = ?`, size, session); err != nil {
		return err
	}
	return w.addSpent(session, spent, -1)
}

// forgetBranches drops the rows of the session's branches that are gone.
func (w *writer) forgetBranches(session string, branches []backing.Branch) error {
	live := map[string]bool{}
	for _, b := range branches {
		live[b.ID] = true
	}
	rows, err := w.query(`SELECT id FROM branches WHERE session = ?`, session)
	if err != nil {
		return err
	}
	var gone []string
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil && !live[id] {
			gone = append(gone, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range gone {
		if err := w.dropBranch(session, id); err != nil {
			return err
		}
	}
	return nil
}

// forget drops every row of a session that is gone for good.
func (w *writer) forget(id string) error {
	for _, q := range []string{
		`DELETE FROM text WHERE rowid IN (SELECT row FROM messages WHERE session = ?)`,
		`DELETE FROM messages WHERE session = ?`,
		`DELETE FROM branches WHERE session = ?`,
		`DELETE FROM spend WHERE session = ?`,
		`DELETE FROM sessions WHERE id = ?`,
	} {
		if _, err := w.exec(q, id); err != nil {
			return err
		}
	}
	return nil
}

// kick has the index catch up soon after a change, when this process
// keeps it up to date in the background (Options.Indexing): within a
// second of an append, a search finds it without waiting.
func (x *index) kick() {
	x.kickMu.Lock()
	defer x.kickMu.Unlock()
	if !x.background || x.kicked {
		return
	}
	x.kicked = true
	time.AfterFunc(kickDelay, func() {
		lowPriority() // a goroutine of its own, which ends with the catch-up
		x.kickMu.Lock()
		x.kicked = false
		x.kickMu.Unlock()
		if err := x.use(func(*sql.DB) error { return nil }); err != nil {
			x.st.logf("sessfs: search index: %v", err)
		}
	})
}

// kickDelay gathers the changes of a burst of appends into one catch-up.
const kickDelay = 200 * time.Millisecond

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
