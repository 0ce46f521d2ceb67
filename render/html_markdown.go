package render

import (
	"bytes"
	"net/url"
	"path"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// transcript.html renders the Markdown that users and models write
// (headings, emphasis, lists, GitHub's tables, fenced code) with goldmark,
// and keeps the page inert:
//   - raw HTML in a message is shown as text, escaped, never as markup;
//   - links are links only to http, https and mailto addresses, and never
//     send a referrer; any other link is its text;
//   - an image is drawn only when its bytes are in the message (a data:
//     URL of a drawable type, at most maxInlineImage); any other image,
//     and a link to an image file, is a placeholder naming it, so the page
//     loads nothing (its Content-Security-Policy forbids it too);
//   - headings are shifted two levels down, below the page's title (h1)
//     and turns (h2).

// maxMarkdownGrowth bounds how many times its size a text's HTML may be
// (plus 1 KiB): quotes nested on every line make 27 bytes of one. Escaped
// text is at most 6 times its size.
const maxMarkdownGrowth = 8

// htmlMarkdown is the one goldmark set-up; goldmark is safe for concurrent
// use, and every step added here keeps no state between calls.
var htmlMarkdown = goldmark.New(
	goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough, extension.TaskList, extension.Linkify,
	),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(inertTransformer{}, 100))),
	// Agents and people break lines where they mean them, as a terminal
	// shows them.
	goldmark.WithRendererOptions(html.WithHardWraps(),
		renderer.WithNodeRenderers(util.Prioritized(inertRenderer{}, 100))),
)

// markdownHTML renders Markdown as HTML. s must be clean (htmlClean): what
// goldmark writes is then valid UTF-8 with no control characters.
func markdownHTML(s string) string {
	var b bytes.Buffer
	if err := htmlMarkdown.Convert([]byte(s), &b); err != nil {
		// goldmark fails only when its writer does, which a Buffer never does.
		return "<p>" + htmlEscape(s) + "</p>"
	}
	return strings.TrimRight(b.String(), "\n")
}

// plainMarkdown reports text that has no Markdown in it, the many short
// replies of a conversation, whose HTML writePlainMarkdownHTML writes
// without goldmark's parse (most of the cost of a short message's piece):
// paragraphs of lines that start with an ASCII letter, hold only letters,
// digits, spaces and punctuation that starts nothing (markdownSafe) and
// no "www." (a link to goldmark), and end with no blank.
func plainMarkdown(s string) bool {
	lineStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			if i == 0 || s[i-1] == ' ' {
				return false
			}
			lineStart = true
			continue
		case lineStart && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			return false
		case !markdownSafe[c]:
			return false
		case c == '.' && i >= 3 && (s[i-1]|0x20) == 'w' && (s[i-2]|0x20) == 'w' && (s[i-3]|0x20) == 'w':
			return false
		}
		lineStart = false
	}
	return s != "" && s[len(s)-1] != ' ' && s[len(s)-1] != '\n'
}

// writePlainMarkdownHTML writes markdownHTML(s) for a plainMarkdown s, as
// goldmark does: each paragraph a <p>, its line breaks <br>
// (WithHardWraps). FuzzPlainMarkdownHTML holds it to goldmark's bytes.
func writePlainMarkdownHTML(b *strings.Builder, s string) {
	b.WriteString("<p>")
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != '\n':
			b.WriteByte(s[i])
		case s[i+1] != '\n':
			b.WriteString("<br>\n")
		default:
			for s[i+1] == '\n' { // blank lines: a paragraph ends
				i++
			}
			b.WriteString("</p>\n<p>")
		}
	}
	b.WriteString("</p>")
}

// markdownSafe is the bytes plainMarkdown takes: none starts
// emphasis, code, a link, an entity, HTML, a table cell, an escape or an
// autolink (':' and '@'), none is escaped in HTML, none is a control
// character, and all are ASCII.
var markdownSafe = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "0123456789 ,.;?'()/-+=%$#" {
		t[c] = true
	}
	return t
}()

// kindPlaceholder is a node that stands for an image that is not loaded.
var kindPlaceholder = ast.NewNodeKind("Placeholder")

type placeholder struct {
	ast.BaseInline
	what string // "image: x.png"
}

func (n *placeholder) Kind() ast.NodeKind { return kindPlaceholder }

func (n *placeholder) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"what": n.what}, nil)
}

// inertTransformer rewrites images, links and headings as the comment at
// the top of this file says.
type inertTransformer struct{}

func (inertTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	source := reader.Source()
	var nodes []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch n.(type) {
			case *ast.Image, *ast.Link, *ast.AutoLink, *ast.Heading:
				nodes = append(nodes, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range nodes {
		switch n := n.(type) {
		case *ast.Heading:
			n.Level = min(n.Level+2, 6)
		case *ast.Image:
			if r, ok := markdownImage(string(n.Destination)); ok {
				if _, ok := r.dataURL(); ok {
					n.SetAttributeString("class", []byte("media")) // styled as image blocks are
					continue
				}
				replace(n, &placeholder{what: r.describe(oneLine)})
				continue
			}
			replace(n, &placeholder{what: "image: " + fileName(string(n.Destination))})
		case *ast.Link:
			dest := string(n.Destination)
			switch {
			case isImageFile(dest):
				replace(n, &placeholder{what: "image: " + fileName(dest)})
			case safeLink(dest):
				n.SetAttributeString("rel", []byte("noreferrer nofollow"))
			default:
				unwrap(n)
			}
		case *ast.AutoLink:
			dest := string(n.URL(source))
			switch {
			case isImageFile(dest):
				replace(n, &placeholder{what: "image: " + fileName(dest)})
			case safeLink(dest) || n.AutoLinkType == ast.AutoLinkEmail:
				n.SetAttributeString("rel", []byte("noreferrer nofollow"))
			default:
				t := ast.NewString(n.Label(source))
				t.SetRaw(true) // escaped as it is, not read for references
				replace(n, t)
			}
		}
	}
}

// markdownImage reads an image's destination when it is a data: URL.
func markdownImage(dest string) (mediaRef, bool) {
	if !strings.HasPrefix(dest, "data:") {
		return mediaRef{}, false
	}
	r := mediaRef{word: "image"}
	r.setURL(dest)
	return r, true
}

// safeLink reports a link that may be followed from the page: to a web
// page or a mail address.
func safeLink(dest string) bool {
	u, err := url.Parse(dest)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != ""
	case "mailto":
		return true
	}
	return false
}

// isImageFile reports a link to an image file, by its name.
func isImageFile(dest string) bool {
	switch strings.ToLower(path.Ext(fileName(dest))) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".avif", ".ico":
		return true
	}
	return false
}

// fileName is the last part of a URL's or path's path, or the whole
// address when it has none.
func fileName(dest string) string {
	p := dest
	if u, err := url.Parse(dest); err == nil && u.Path != "" {
		p = u.Path
	}
	if name := path.Base(p); name != "." && name != "/" && name != "" {
		return name
	}
	return dest
}

// replace puts m where n is.
func replace(n, m ast.Node) {
	n.Parent().ReplaceChild(n.Parent(), n, m)
}

// unwrap replaces n by its children.
func unwrap(n ast.Node) {
	parent := n.Parent()
	for c := n.FirstChild(); c != nil; {
		next := c.NextSibling()
		parent.InsertBefore(parent, n, c)
		c = next
	}
	parent.RemoveChild(parent, n)
}

// inertRenderer writes raw HTML as text, escaped, and placeholders.
type inertRenderer struct{}

func (inertRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(kindPlaceholder, renderPlaceholder)
}

func renderRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := n.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
		}
	}
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var b bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(source))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(source))
	}
	_, _ = w.WriteString(`<p class="raw">`)
	_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(b.Bytes(), "\n")))
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

func renderPlaceholder(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString(`<span class="media">[`)
		_, _ = w.WriteString(htmlEscape(n.(*placeholder).what + " — not loaded; see export.json"))
		_, _ = w.WriteString("]</span>")
	}
	return ast.WalkSkipChildren, nil
}
