// Package importer owns everything about other agents' session files:
// decoding them into what the sessfs store needs (session metadata and
// store messages), and the import and sync engine that writes them into a
// backing.Store, of any engine, and gives them back.
//
// The engine (engine.go and beside it):
//   - New(store, Options) returns an Importer; Run(paths, done) imports
//     the files SourceFiles finds under paths, reporting each file's
//     Result (the session's name, whether anything was stored, the error)
//     to done and progress to Options.Progress. A new source becomes a
//     session named to be read (names.go); a source imported before is
//     found by its id, whatever its session is called now (index.go), and
//     only the lines it gained are stored, each in its branch (seqs.go);
//     one that changed other than by growing is refused (ErrRewritten).
//     A file of the size and time meta.json records of the bytes stored
//     is taken for unchanged without a read (the quick check, index.go).
//     Sessions that came from another (a Codex fork, a subagent's file)
//     are linked to it as parent.
//   - Syncer (sync.go, watch.go) keeps a store in step with the agents'
//     folders, for good: sessfs sync [--watch] and mount --source. A
//     deleted source leaves its session (meta.json's source records it
//     "gone"), a moved one is followed, a rewritten one is stored again
//     as a new session beside the old (Options.Sync).
//   - Original and Verify give an imported session's source back byte for
//     byte: export --format original.
//   - Origin (origin.go) is the one typed record of meta.json's "source",
//     read by OriginOf; SourceSeq is the one reader of a stored line's
//     "source_seq".
//   - WriteNative (native.go, native_claude.go, native_codex.go) writes a
//     branch as a new Claude Code or Codex session with a fresh id, which
//     the agent resumes: a line from that same agent again with only its
//     ids rewritten, anything else from its stored content; what the agent
//     cannot read is counted in LeftOut. NativePath and ResumeCommand
//     (native_path.go) say where the agent looks for it and how it resumes
//     it: sessfs resume and export --format claude-code|codex.
//
// The command line's part stays in cmd/sessfs: flags, the progress line,
// printing results, how a message spells a command. This package imports
// backing only, never cmd or fsnode.
//
// Formats: Claude Code (~/.claude/projects/*/<sessionId>.jsonl), Codex
// rollouts (~/.codex/sessions/**/rollout-*.jsonl, the wrapped format with
// session_meta, used since 2025; 0.169 included) and Gemini CLI
// (~/.gemini/tmp/<project>/chats/session-*.jsonl since 0.6x, and the
// whole JSON documents session-*.json of earlier versions). Detect tells
// them apart by content.
//
// Lossless by construction: every non-empty line of a file becomes either
// one message or one event, in file order (Session.EventAt records where
// each event sat among the messages). A message keeps its line under
// "source" as a JSON object with the bytes as written, so a later export
// can write the file again: SourceLine regenerates a line from a message,
// also after the store has compacted it (a line that was not compact JSON
// to begin with is kept as a string in "source_line" for that reason;
// the agents write compact lines, hand-made fixtures often do not). The
// value of the line that is the message's content is kept once, in
// "content", with a hole in "source" (slim.go): Slim makes the hole,
// SourceLine fills it.
//
// Claude Code: user, assistant and system lines with a content become
// messages with the line's uuid as "id", so a re-import can recognise them.
// Branches splits a session into the default branch and forks: a rewind
// (a user's new prompt under a line that already had a child) leaves the
// path it abandoned as a fork at that line. Parallel tool calls, whose
// results are second children of their calls, are not forks. A subagent's
// lines (isSidechain) make a branch of their own.
//
// Injected context (context.go): what the agent sent in the user's or the
// developer's name that the human did not type is marked "context": <kind>,
// so the store's turn rule starts turns only at typed prompts.
//
// What this version does not do yet, on purpose:
//   - Merging. One API response can span several consecutive assistant
//     lines sharing message.id (one content block each); each line stays
//     its own message, and those after the first carry "continues": true,
//     so renderings show them as one message.
//   - Subagents: a subagent's lines inside the session file (isSidechain)
//     become a branch, subagent-N, forked where the subagent started; a
//     subagent's file of its own (<session>/subagents/agent-*.jsonl) is a
//     session of its own, which the import names after its session
//     and links to it as parent.
//   - Duplicate uuids are not resolved: the store keeps the first message
//     of an id and takes a second for a retry, so a uuid Claude Code wrote
//     twice is the "id" of its first line only (both keep it in "source").
//
// Codex: response items become messages (reasoning and tool calls as
// assistant messages holding the item as one block, tool outputs as role
// "tool"); event_msg lines, which repeat the response items for the UI,
// session_meta and turn_context lines are events. A compacted line becomes
// a system message marked as compaction context, so a transcript shows
// where the history was summarised. Codex items have no id; the store
// assigns one.
//
// Gemini CLI (gemini.go): the metadata line and {"$set"} lines are
// events (a $set may restore the whole history on a resume: shown, every
// reply would show twice); a message line is a message with the line's
// id; a line that writes a message of a known id again (Gemini CLI does
// as it records the reply's tool calls) is a message of only what it adds,
// "continues" after that message and without an id, or an event when it
// adds nothing. Content is Gemini API parts (text, thought, functionCall,
// functionResponse); a user line of function responses is role "tool";
// the session context (<session_context>) is environment context. The cwd
// is the session context's workspace when its SHA-256 is the projectHash.
// A --resume starts a new file under the same session id (and leaves it
// with no message: gemini_resume.go), so a Gemini source is known by its
// id and its file's name; a file of no message beside an earlier file of
// its id is archived, a child of that file's session. An older whole document
// (gemini_json.go) is cut at line ends into parts, one a message, so its
// "source_line" can hold several lines of the file; it is rewritten whole
// at each update, so a later import of a changed one is refused
// (ErrRewritten).
//
// A line that is not JSON is an error naming its line number; empty lines
// are skipped. Lines that are JSON but not a message of a known shape are
// events: nothing is dropped. StoreLines turns both into store messages in
// file order, each with its line number in "source_seq" (events get role
// EventRole), which is what `sessfs import` stores: an export of the
// original puts the lines back in order, empty ones where numbers skip.
package importer
