package render

import (
	"strconv"
	"strings"
)

// mediaRef is what a reader is told of an image, document or file block:
// what it is and how big, or where it lives. Its data is copied only into
// transcript.html, and only to draw a small image (dataURL); elsewhere it
// is unreadable as text and can be megabytes long.
type mediaRef struct {
	word      string // image, document or file
	name      string // the file's name, when given
	url       string // a URL, shown whole
	fileID    string // an uploaded file's id
	mediaType string // of inline data
	data      string // inline data (base64 or not)
	inline    bool   // data is set
	base64    bool
	noDraw    bool // not drawn: the message has drawn its share (maxDrawn)
}

// parseMedia reads an image, document or file block in the Anthropic and
// OpenAI shapes. It reports false when the block has no source it knows.
func parseMedia(typ string, b object) (mediaRef, bool) {
	r := mediaRef{word: "image"}
	switch typ {
	case "document":
		r.word = "document"
	case "input_file":
		r.word = "file"
	}
	ok := false
	switch typ {
	case "image", "document": // Anthropic: {"source": {"type": …}}
		src, isObj := parseObject(b.get("source"))
		if !isObj {
			return r, false
		}
		st, _ := src.str("type")
		switch st {
		case "base64":
			r.mediaType, _ = src.str("media_type")
			r.data, _ = src.str("data")
			r.inline, r.base64, ok = true, true, true
		case "url":
			r.url, _ = src.str("url")
			ok = r.url != ""
		case "file":
			r.fileID, _ = src.str("file_id")
			ok = r.fileID != ""
		}
	case "input_image": // OpenAI Responses: image_url is a string
		ok = r.urlOrFile(b, "image_url")
	case "image_url": // OpenAI chat: image_url is {"url": …} (or a string)
		if u, isObj := parseObject(b.get("image_url")); isObj {
			ok = r.urlOrFile(u, "url")
		} else {
			ok = r.urlOrFile(b, "image_url")
		}
	case "input_file": // OpenAI Responses: file_data, file_url or file_id
		ok = r.urlOrFile(b, "file_data") || r.urlOrFile(b, "file_url")
		if name, has := b.str("filename"); has && name != "" {
			r.name, ok = name, true
		}
	}
	return r, ok
}

// urlOrFile takes the URL in field key of b, or else b's file_id; false
// when neither is there.
func (r *mediaRef) urlOrFile(b object, key string) bool {
	if u, ok := b.str(key); ok && u != "" {
		r.setURL(u)
		return true
	}
	if id, ok := b.str("file_id"); ok && id != "" {
		r.fileID = id
		return true
	}
	return false
}

// setURL takes a URL: a data URL as inline data, bare base64 (as OpenAI
// file_data may be) too, anything else as an address.
func (r *mediaRef) setURL(u string) {
	rest, isData := strings.CutPrefix(u, "data:")
	switch {
	case isData:
		header, data, _ := strings.Cut(rest, ",")
		r.mediaType, r.base64 = strings.CutSuffix(header, ";base64")
		r.data, r.inline = data, true
	case strings.Contains(u, "://"):
		r.url = u
	default:
		r.data, r.inline, r.base64 = u, true, true
	}
}

// size is the size of inline data in bytes, decoded when it is base64.
func (r mediaRef) size() int {
	if r.base64 {
		return len(strings.TrimRight(r.data, "=")) * 3 / 4
	}
	return len(r.data)
}

// describe says in one line what the block holds, "image: image/png,
// 12 KB": the data itself is only measured. show formats each value taken
// from the message.
func (r mediaRef) describe(show func(string) string) string {
	var desc string
	switch {
	case r.inline:
		desc = sizeText(r.size())
		if r.mediaType != "" {
			desc = show(r.mediaType) + ", " + desc
		}
	case r.url != "":
		desc = show(r.url)
	case r.fileID != "":
		desc = "file " + show(r.fileID)
	}
	if r.name != "" {
		if desc == "" {
			desc = show(r.name)
		} else {
			desc = show(r.name) + ", " + desc
		}
	}
	return r.word + ": " + desc
}

// maxInlineImage is the most base64 an image may hold to be drawn in
// transcript.html; a larger one is described, its bytes left in
// messages.jsonl and export.json, so that a page stays quick to open.
const maxInlineImage = 2 << 20

// drawable are the image types every browser draws.
var drawable = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// dataURL returns the data: URL that draws r in a page: r must be an image
// of a drawable type, in base64 of at most maxInlineImage bytes.
func (r mediaRef) dataURL() (string, bool) {
	mt := strings.ToLower(r.mediaType)
	if r.word != "image" || !r.inline || !r.base64 || r.noDraw || !drawable[mt] || len(r.data) > maxInlineImage || !isBase64(r.data) {
		return "", false
	}
	return "data:" + mt + ";base64," + r.data, true
}

// isBase64 reports whether s holds only base64's letters (and padding).
func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return s != ""
}

// sizeText formats a byte count for a reader: "512 bytes", "1.2 KB",
// "12 KB", "3.4 MB".
func sizeText(n int) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1024:
		return strconv.Itoa(n) + " bytes"
	case n < 10*1024:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KB"
	case n < 1024*1024:
		return strconv.Itoa((n+512)/1024) + " KB"
	}
	return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + " MB"
}
