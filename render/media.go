package render

import (
	"strconv"
	"strings"
)

// mediaRef is what a reader is told of an image, document or file block:
// the data itself is never copied (it is unreadable as text and can be
// megabytes long), only what it is and how big, or where it lives.
type mediaRef struct {
	word      string // image, document or file
	name      string // the file's name, when given
	url       string // a URL, shown whole
	fileID    string // an uploaded file's id
	mediaType string // of inline data
	data      string // inline data (base64 or not)
	inline    bool   // data is set
	base64    bool
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
		src, isObj := parseObject(b["source"])
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
		if u, isObj := parseObject(b["image_url"]); isObj {
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

// urlOrFile takes the URL in field key of b (a data URL as inline data), or
// else b's file_id; false when neither is there.
func (r *mediaRef) urlOrFile(b object, key string) bool {
	if u, ok := b.str(key); ok && u != "" {
		rest, isData := strings.CutPrefix(u, "data:")
		switch {
		case isData:
			header, data, _ := strings.Cut(rest, ",")
			r.mediaType, r.base64 = strings.CutSuffix(header, ";base64")
			r.data, r.inline = data, true
		case strings.Contains(u, "://"):
			r.url = u
		default: // bare base64, as OpenAI file_data may be
			r.data, r.inline, r.base64 = u, true, true
		}
		return true
	}
	if id, ok := b.str("file_id"); ok && id != "" {
		r.fileID = id
		return true
	}
	return false
}

// describe is the one-line reference, "[image: image/png, 12345 bytes of
// base64]": show formats a value taken from the message, size inline data.
func (r mediaRef) describe(show func(string) string, size func(mediaType, data string, base64 bool) string) string {
	var desc string
	switch {
	case r.inline:
		desc = size(r.mediaType, r.data, r.base64)
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
	return "[" + r.word + ": " + desc + "]"
}

// media is the Markdown reference to an image, document or file block.
func media(typ string, b object) (string, bool) {
	r, ok := parseMedia(typ, b)
	if !ok {
		return "", false
	}
	return r.describe(inlineCode, func(mt, data string, base64 bool) string {
		return sized(mt, len(data), base64)
	}), true
}

// sized is "image/png, 12345 bytes of base64" (the media type omitted when
// unknown).
func sized(mediaType string, n int, base64 bool) string {
	s := strconv.Itoa(n) + " bytes"
	if base64 {
		s += " of base64"
	}
	if mediaType != "" {
		s = plainOrCode(mediaType) + ", " + s
	}
	return s
}
