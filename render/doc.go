// Package render turns stored messages into the bytes of sessfs's generated
// files and exports: transcript.md (Markdown), transcript.html (one
// self-contained page, html.go, which renders the Markdown in messages
// with goldmark, html_markdown.go), messages.jsonl (one stored line per
// message) and export.json (one document, document.go); and it masks
// secrets in any of them (redact.go). shapes.go is the one place that knows
// the shapes of Anthropic and OpenAI message content, tools.go what
// well-known tools take and give back, header.go what a transcript's
// header holds; markdown_style.go and html.go say how each part looks.
//
// Everything here is a pure function of its arguments: no I/O, no FUSE, no
// clock, no imports of other sessfs packages. The callers (fsnode and cmd)
// fetch messages from the store and decide which turn each one starts.
//
// # The per-message contract
//
// A rendered file is the concatenation of one piece per message, in order:
//
//	file = Markdown(m0) + Markdown(m1) + … + Markdown(mn-1)
//
// Each piece depends only on its own Message (its stored JSON and the turn
// number the caller passes in), never on its neighbours, and the same input
// always gives the same bytes. Every Markdown piece ends with exactly one
// blank line ("\n\n"), and any code fence a message opens is closed inside
// that message, so a piece cannot change how the next one renders.
//
// Each format also has an appending form (AppendMarkdown, AppendHTML,
// AppendJSONL, AppendJSONMember, AppendRedact) that renders a piece onto
// the end of a caller's buffer, so that rendering many messages costs no
// allocation a piece of the caller's; the plain functions return the
// piece in a slice of its own.
//
// transcript.md opens with a header (MarkdownHead); transcript.html and
// export.json add a head and tail around the pieces (HTMLHeadFor/HTMLTail,
// JSONHead/JSONTail). A head depends on the session, never on a message. A
// stored line of role "event" renders as an empty piece.
//
// A piece is bounded in size and time, however the message is built: what
// it cannot show is cut, with a marker that says so (limits.go).
//
// This is what makes byte-range reads cheap: the filesystem caches each
// piece's length, finds the messages a read(2) at some offset covers, and
// renders only those. It is also what makes the files append-friendly: a new
// message only adds bytes at the end, so earlier pages stay valid in the
// kernel's cache and `tail -f` sees the file grow.
package render
