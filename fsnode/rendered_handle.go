package fsnode

// renderedHandle is one open of a rendering whose end moves as it grows
// (transcript.html's closing tags, export.json's closing brackets): every
// read of it reads the file as it was at open, so a reader sees one
// version whole, never the old closing tag in the middle with newer
// messages after it, nor the new document cut at the old size. The kernel
// keeps no pages of it (direct I/O): its page cache is one per file, and
// would mix the pages of two versions; a read is not held to the size the
// kernel knows, and ends where the version ends.
type renderedHandle struct {
	sp span
}
