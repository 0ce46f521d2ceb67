package render

import (
	"strconv"
	"strings"
)

// media renders an image, document or file block as a one-line reference
// such as "[image: image/png, 12345 bytes of base64]". The data itself is
// never copied: it is unreadable as text and can be megabytes long. It
// reports false when the block has no source it recognises.
func media(typ string, b object) (string, bool) {
	word := "image"
	switch typ {
	case "document":
		word = "document"
	case "input_file":
		word = "file"
	}
	var desc string
	switch typ {
	case "image", "document": // Anthropic: {"source": {"type": …}}
		src, ok := parseObject(b["source"])
		if !ok {
			return "", false
		}
		st, _ := src.str("type")
		switch st {
		case "base64":
			mt, _ := src.str("media_type")
			data, _ := src.str("data")
			desc = sized(mt, len(data), true)
		case "url":
			u, _ := src.str("url")
			desc = inlineCode(u)
		case "file":
			id, _ := src.str("file_id")
			desc = "file " + inlineCode(id)
		default:
			return "", false
		}
	case "input_image": // OpenAI Responses: image_url is a string
		desc = urlOrFile(b, "image_url")
	case "image_url": // OpenAI chat: image_url is {"url": …} (or a string)
		if u, ok := parseObject(b["image_url"]); ok {
			desc = urlOrFile(u, "url")
		} else {
			desc = urlOrFile(b, "image_url")
		}
	case "input_file": // OpenAI Responses: file_data, file_url or file_id
		desc = urlOrFile(b, "file_data")
		if desc == "" {
			desc = urlOrFile(b, "file_url")
		}
		if name, ok := b.str("filename"); ok && name != "" {
			if desc == "" {
				desc = inlineCode(name)
			} else {
				desc = inlineCode(name) + ", " + desc
			}
		}
	}
	if desc == "" {
		return "", false
	}
	return "[" + word + ": " + desc + "]", true
}

// urlOrFile describes the URL in field key of b (a data URL by its type and
// size, another URL as written), or else b's file_id; "" when neither.
func urlOrFile(b object, key string) string {
	if u, ok := b.str(key); ok && u != "" {
		return describeURL(u)
	}
	if id, ok := b.str("file_id"); ok && id != "" {
		return "file " + inlineCode(id)
	}
	return ""
}

// describeURL shortens a data URL to its media type and size; other URLs
// are short and worth showing, so they are kept whole.
func describeURL(u string) string {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		if strings.Contains(u, "://") {
			return inlineCode(u)
		}
		// Bare base64 (OpenAI file_data may omit the data: prefix).
		return sized("", len(u), true)
	}
	header, data, _ := strings.Cut(rest, ",")
	mt, isBase64 := strings.CutSuffix(header, ";base64")
	return sized(mt, len(data), isBase64)
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
