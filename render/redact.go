package render

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// Rule is one kind of secret Redact masks.
type Rule struct {
	Name    string // short id, e.g. "aws-access-key"
	Example string // a made-up sample the rule masks (used by tests and docs)
	What    string // one line for the README: what it matches
	re      *regexp.Regexp
	group   int // the submatch that is the secret (0: the whole match)
}

// redactPEMBody is the group of the private-key rule: its match is only
// the BEGIN line, and the body after it is masked line by line (see
// redactPEM), which a regular expression cannot do without also eating
// the line separators.
const redactPEMBody = -1

// Character classes shared by the rules. A secret never contains white
// space, a quote, a backslash, '<' or '>': so masking stays inside one JSON
// string, never cuts a JSON escape, and never touches HTML markup.
const (
	// redactValueChar is a byte of a named value; brackets and braces
	// end it so that code such as token := tok.Next() or a[i] is not a
	// value.
	redactValueChar = `[^\s"'` + "`" + `\\<>(){}\[\]]`
	// redactValueFirst also refuses what cannot start a literal secret:
	// '=' (a comparison), '$' (a variable), '&' (an HTML entity), ':' and
	// ',' (JSON structure after a closing quote) and '[' (a redaction).
	redactValueFirst = `[^\s"'` + "`" + `\\<>(){}\[\]=$&:,]`
	// redactValueEnd must follow a value: it ends at a delimiter, not at
	// a '(' or '[' that shows it is an expression.
	redactValueEnd = `(?:[\s"'` + "`" + `\\<>)\]}]|$)`
	// redactOpenQuote may precede a value: a quote, JSON-escaped or not,
	// or the HTML entities html.EscapeString writes.
	redactOpenQuote = `(?:\\*["']|&#34;|&#39;|&quot;)?`
	// redactCloseQuote may follow a name outside JSON structure: an escaped
	// quote, a single quote or an HTML entity. A bare '"' after a name is a
	// JSON key, handled by redactAssign so that the value must be a string.
	redactCloseQuote = `(?:\\+["']|'|&#34;|&#39;|&quot;)?`
)

// redactAssign returns a pattern for name followed by an assignment: a
// JSON key ("name": "value", whose value must be a string so masking
// keeps the JSON valid) or anything else (name=value, name: value,
// name := "value", \"name\": \"value\").
func redactAssign(name string) string {
	return name + `(?:"[ \t]*:[ \t]*"|` + redactCloseQuote + `[ \t]*(?::=|[:=])[ \t]*` + redactOpenQuote + `)`
}

// RedactRules is the documented, ordered rule list. Order matters: a rule
// sees the output of the ones before it, so the specific come first
// (anthropic-key before openai-key; token formats before the generic
// secret-assignment, whose value is then already a redaction).
//
// The examples are split in two so that secret scanners do not flag this
// file; they are made up.
var RedactRules = []Rule{
	{
		Name:    "private-key",
		Example: "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA " + "PRIVATE KEY-----",
		What:    "the body of a PEM private key (`-----BEGIN … PRIVATE KEY-----`), each line masked on its own; the BEGIN and END lines and the line breaks stay",
		re:      regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`),
		group:   redactPEMBody,
	},
	{
		Name:    "aws-access-key",
		Example: "AKIA" + "IOSFODNN7EXAMPLE",
		What:    "AWS access key IDs: `AKIA` or `ASIA` and 16 upper-case letters or digits",
		re:      regexp.MustCompile(`(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	},
	{
		Name:    "aws-secret-key",
		Example: "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		What:    "the value of an `aws_secret_access_key` (or `SecretAccessKey`) assignment: 16 or more base64 characters",
		re:      regexp.MustCompile(redactAssign(`(?i)(?:(?:aws_)?secret_access_key|(?:aws)?secretaccesskey)`) + `([A-Za-z0-9/+=]{16,})`),
		group:   1,
	},
	{
		Name:    "github-token",
		Example: "ghp_" + "EXAMPLE0123456789abcdefghijklmnopqrs",
		What:    "GitHub tokens: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 36 letters or digits; `github_pat_` and 22 or more",
		re:      regexp.MustCompile(`(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`),
	},
	{
		Name:    "gitlab-token",
		Example: "glpat-" + "EXAMPLE0123456789abc",
		What:    "GitLab personal access tokens: `glpat-` and 20 or more characters",
		re:      regexp.MustCompile(`glpat-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*`),
	},
	{
		Name:    "slack-token",
		Example: "xoxb-" + "123456789012-1234567890123-EXAMPLEexample0123",
		What:    "Slack tokens: `xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxs-`, `xoxr-` and 10 or more characters",
		re:      regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}`),
	},
	{
		Name:    "stripe-key",
		Example: "sk_live_" + "EXAMPLE0123456789abcdefg",
		What:    "Stripe live keys: `sk_live_` or `rk_live_` and 16 or more letters or digits",
		re:      regexp.MustCompile(`[sr]k_live_[A-Za-z0-9]{16,}`),
	},
	{
		Name:    "anthropic-key",
		Example: "sk-ant-" + "api03-EXAMPLE0123456789abcdefghijklmn-AA",
		What:    "Anthropic API keys: `sk-ant-` and 16 or more characters",
		// 16, not 20: any sk-ant- key long enough for openai-key is
		// labelled anthropic-key.
		re: regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{16,}`),
	},
	{
		Name:    "openai-key",
		Example: "sk-proj-" + "EXAMPLE0123456789abcdefghijklmn",
		What:    "OpenAI API keys: `sk-` (including `sk-proj-`) and 20 or more letters, digits, `-` or `_`",
		re:      regexp.MustCompile(`sk-[A-Za-z0-9_-]{20,}`),
	},
	{
		Name:    "google-api-key",
		Example: "AIza" + "SyEXAMPLE0123456789abcdefghijklmnop",
		What:    "Google API keys: `AIza` and 35 letters, digits, `-` or `_`",
		re:      regexp.MustCompile(`AIza[0-9A-Za-z_-]{35,}`),
	},
	{
		Name:    "jwt",
		Example: "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJFWEFNUExFIn0.EXAMPLEsignature0123456789",
		What:    "JSON Web Tokens: three base64url parts joined by dots, the first starting `eyJ` and the second `ey`",
		re:      regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
	},
	{
		Name:    "url-password",
		Example: "postgres://admin:" + "EXAMPLEpassw0rd@db.example.com:5432/app",
		What:    "the password in a URL, `scheme://user:PASSWORD@host`",
		re:      regexp.MustCompile(`://[^\s:/@"'` + "`" + `\\<>\[\]]*:([^\s/@"'` + "`" + `\\<>\[\]]+)@`),
		group:   1,
	},
	{
		Name:    "auth-header",
		Example: "Authorization: Bearer " + "EXAMPLEtoken0123456789",
		What:    "the credentials in an `Authorization:` header with the Bearer, Basic or Token scheme: 8 or more characters, not a variable (`$TOKEN`, `{token}`)",
		re: regexp.MustCompile(redactAssign(`(?i)authorization`) + `[ \t]*(?:bearer|basic|token)[ \t]+(` +
			redactValueFirst + redactValueChar + `{7,})`),
		group: 1,
	},
	{
		Name:    "secret-assignment",
		Example: "password=" + "EXAMPLEhunter2",
		What: "the value assigned to `password`, `passwd`, `secret`, `secret_key`, `api_key`, `apikey`, `api-key`, " +
			"`access_token`, `auth_token`, `client_secret`, `private_key` or `token` (any case, also ending a longer name " +
			"such as `DB_PASSWORD`) with `=`, `:` or `:=`, quoted or not: 8 or more characters, not a variable (`$X`), " +
			"a call (`f(x)`), an index (`a[i]`) or a redaction",
		re: regexp.MustCompile(redactAssign(`(?i)(?:passw(?:or)?d|client[_-]?secret|secret(?:[_-]?key)?|api[_-]?key|access[_-]?token|auth[_-]?token|private[_-]?key|token)`) +
			`(` + redactValueFirst + redactValueChar + `{7,})` + redactValueEnd),
		group: 1,
	},
}

// redactHints lists, for the rules whose regexp starts with no literal
// (Go's regexp then steps through every byte: those four took 1.5 s on
// 10 MB, the other ten 20 ms), lower-case words one of which every match
// contains. The regexp only sees a window around each occurrence. With
// assign set, the word ends a name that must be followed by '=' or ':', so
// the "input_tokens" of every line of a Claude Code session costs nothing.
// With scheme set, a word (Bearer) comes between the '=' or ':' and the
// secret.
type redactHint struct {
	words          []string
	assign, scheme bool
}

var redactHints = map[string]redactHint{
	"aws-secret-key": {[]string{"secret_access_key", "secretaccesskey"}, true, false},
	"stripe-key":     {[]string{"k_live_"}, false, false},
	"auth-header":    {[]string{"authorization"}, true, true},
	"secret-assignment": {[]string{"passwd", "password", "secret", "token",
		"apikey", "api_key", "api-key", "secretkey", "secret_key", "secret-key",
		"privatekey", "private_key", "private-key"}, true, false},
}

const (
	// redactBack bounds how far before its hint word a match may start:
	// "client_secret" starts 7 bytes before "secret".
	redactBack = 24
	// redactWindow is the first guess at how far after a hint (and the
	// '=' or ':' after it) a match may end; a match that reaches the end
	// of the window is tried again in one twice as large.
	redactWindow = 64
)

// Redact returns b with every secret replaced by "[REDACTED:<rule name>]",
// only the secret part (for a URL with a password, only the password; for
// "Authorization: Bearer xyz", only xyz; for key=value, only the value).
//
// The rules run in order over the whole input (a PEM key spans lines).
// Masking never adds or removes a quote, backslash, newline, '<' or '>',
// so JSON lines stay valid JSON and HTML stays well formed, and the
// result is a fixed point: Redact(Redact(b)) equals Redact(b). b is never
// modified; when nothing is masked, b itself is returned.
func Redact(b []byte) []byte {
	lower := redactLowers.Get().(*redactLower)
	for i := range RedactRules {
		b = redactRule(b, &RedactRules[i], lower)
	}
	lower.src = nil
	if cap(lower.lower) <= maxScratch {
		redactLowers.Put(lower)
	}
	return b
}

// AppendRedact appends Redact(b) to dst and returns the extended slice,
// as the append built-in does.
func AppendRedact(dst, b []byte) []byte {
	return append(dst, Redact(b)...)
}

// redactLower caches the ASCII lower-case copy of the input that the
// hinted rules search, as long as no rule has changed the input. Its
// buffer is reused from one call to the next (redactLowers), so clean
// input costs Redact no allocation.
type redactLower struct{ src, lower []byte }

var redactLowers = sync.Pool{New: func() any { return new(redactLower) }}

func (c *redactLower) of(b []byte) []byte {
	if len(b) > 0 && len(c.src) == len(b) && &c.src[0] == &b[0] {
		return c.lower
	}
	if cap(c.lower) < len(b) {
		c.lower = make([]byte, len(b))
	}
	c.src, c.lower = b, c.lower[:len(b)]
	for i, ch := range b {
		if 'A' <= ch && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		c.lower[i] = ch
	}
	return c.lower
}

// redactor builds the output of one rule: out is nil until the first
// secret, so clean input costs no copy.
type redactor struct {
	b, out []byte
	last   int // b[last:] is not copied to out yet
	name   string
}

func (x *redactor) mask(s, e int) {
	if x.out == nil {
		x.out = make([]byte, 0, len(x.b)+64)
	}
	x.out = append(x.out, x.b[x.last:s]...)
	x.out = append(x.out, "[REDACTED:"...)
	x.out = append(x.out, x.name...)
	x.out = append(x.out, ']')
	x.last = e
}

func (x *redactor) result() []byte {
	if x.out == nil {
		return x.b
	}
	return append(x.out, x.b[x.last:]...)
}

// redactRule masks every match of r in b.
func redactRule(b []byte, r *Rule, lower *redactLower) []byte {
	x := &redactor{b: b, name: r.Name}
	if h, ok := redactHints[r.Name]; ok {
		redactHinted(x, r, lower.of(b), h)
	} else {
		redactScan(x, r)
	}
	return x.result()
}

// redactScan masks the matches of r in x.b, running the regexp over all
// of it.
func redactScan(x *redactor, r *Rule) {
	b := x.b
	for pos := 0; pos < len(b); {
		m := r.re.FindSubmatchIndex(b[pos:])
		if m == nil {
			break
		}
		if r.group == redactPEMBody {
			pos = redactPEM(b, pos+m[1], x.mask)
			continue
		}
		pos = x.take(r, m, pos)
	}
}

// take masks the secret of match m of r in b[lo:] if it may start where
// it does, and returns where the search resumes: right after the secret,
// not after the match, whose tail may be the delimiter that starts the
// next one; or one byte after a refused match's start (the regexps have
// no leading assertion, so a shorter slice loses no context).
func (x *redactor) take(r *Rule, m []int, lo int) int {
	s, e := m[2*r.group], m[2*r.group+1]
	if s < 0 || s == e || !redactBoundary(x.b, lo+s) {
		return lo + m[0] + 1
	}
	// In HTML a value ends at the entity html.EscapeString writes for its
	// closing quote, which the classes cannot exclude.
	for _, q := range []string{"&#34;", "&#39;", "&quot;"} {
		if k := bytes.Index(x.b[lo+s:lo+e], []byte(q)); k > 0 {
			e = s + k
		}
	}
	x.mask(lo+s, lo+e)
	return lo + e
}

// redactHinted masks the matches of r in x.b that contain one of words,
// running the regexp only on a window around each occurrence.
func redactHinted(x *redactor, r *Rule, lower []byte, h redactHint) {
	words := h.words
	b := x.b
	next := make([]int, len(words)) // next occurrence of each word, or -1
	for i := range next {
		next[i] = -2 // unknown
	}
	// Hints are looked for from pos; a match may start from floor, which
	// stays behind pos when a hint is skipped ("secret_key": "secret" is
	// not followed by '=', but the match starts there).
	floor := 0
	for pos := 0; pos < len(b); {
		hit := -1
		for i, w := range words {
			if next[i] == -2 || next[i] >= 0 && next[i] < pos {
				next[i] = -1
				if j := bytes.Index(lower[pos:], []byte(w)); j >= 0 {
					next[i] = pos + j
				}
			}
			if next[i] >= 0 && (hit < 0 || next[i] < hit) {
				hit = next[i]
			}
		}
		if hit < 0 {
			return
		}
		// Of the words found at hit ("secret" and "secret_key"), the
		// first one that may end a name.
		end := -1
		for i, w := range words {
			if next[i] == hit && end < 0 {
				end = hit + len(w)
				if h.assign {
					end = redactAssignAfter(lower, end)
				}
			}
		}
		if end < 0 {
			pos = hit + 1
			continue
		}
		lo := max(floor, hit-redactBack)
		hi := min(len(b), redactValueStart(lower, end)+redactWindow)
		if !redactHasValue(lower, redactSecretAt(lower, end, h), hi) {
			pos = hit + 1
			continue
		}
		m := r.re.FindSubmatchIndex(b[lo:hi])
		for m != nil && lo+m[0] <= hit && lo+m[1] == hi && hi < len(b) {
			hi = min(len(b), lo+2*(hi-lo))
			m = r.re.FindSubmatchIndex(b[lo:hi])
		}
		// A match that starts after the hint is not this hint's: leave it
		// to the next one, or a run of hints that never match (each
		// window's last one cut short by the window) would grow every
		// window to the end of the input.
		if m != nil && lo+m[0] > hit {
			m = nil
		}
		if m == nil {
			pos = hit + 1
			continue
		}
		pos = x.take(r, m, lo)
		floor = pos
	}
}

// redactSecretAt returns where the secret of a hinted rule must start when
// its hint (and, with h.assign, the '=' or ':' after it) ends at b[i]: past
// the '=' of ":=", blanks, an opening quote (or the HTML entity for one)
// and, with h.scheme, the scheme word and the blanks around it; -1 when
// the word is no scheme. The regexps allow nothing else there.
func redactSecretAt(b []byte, i int, h redactHint) int {
	if !h.assign {
		return i
	}
	if i < len(b) && b[i] == '=' && b[i-1] == ':' {
		i++
	}
	blanks := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
	}
	blanks()
	j := i
	for j < len(b) && b[j] == '\\' {
		j++
	}
	if j < len(b) && (b[j] == '"' || b[j] == '\'') {
		i = j + 1
	}
	for _, q := range []string{"&#34;", "&#39;", "&quot;"} {
		if bytes.HasPrefix(b[i:], []byte(q)) {
			i += len(q)
		}
	}
	if h.scheme {
		blanks()
		w := i
		for i < len(b) && 'a' <= b[i] && b[i] <= 'z' {
			i++
		}
		switch string(b[w:i]) {
		case "bearer", "basic", "token":
		default:
			return -1
		}
		blanks()
	}
	return i
}

// redactHasValue reports whether b[i:hi] starts with 8 bytes that may be
// in a secret (redactValueChar): every hinted rule's secret does, so a
// window where it does not cannot match, and the regexp need not run.
// Text dense with hints and no secrets, such as "token: token: …", took
// 1 to 2 µs a byte without this.
func redactHasValue(b []byte, i, hi int) bool {
	if i < 0 || hi-i < 8 {
		return false
	}
	for _, c := range b[i : i+8] {
		switch c {
		case ' ', '\t', '\n', '\f', '\r', '"', '\'', '`', '\\', '<', '>', '(', ')', '{', '}', '[', ']':
			return false
		}
	}
	return true
}

// redactAssignAfter returns the index after the '=' or ':' that follows
// a name ending at b[i], after quotes, backslashes, blanks and the HTML
// entities for quotes, or -1. It is a quick superset of what the rules'
// regexps accept.
func redactAssignAfter(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '=', ':':
			return i + 1
		case '"', '\\', '\'', '&', '#', ';', '3', '4', '9', 'q', 'u', 'o', 't', ' ', '\t':
		default:
			return -1
		}
	}
	return -1
}

// redactValueStart returns an index at or before which the value of an
// assignment whose '=' or ':' ends at b[i] starts, so that the window
// holds a value however many blanks or quotes precede it: it skips them
// (with backslashes, the '=' of ":=" and the characters of HTML
// entities), then a word (an Authorization scheme) and blanks again.
// Skipping part of a value only widens the window.
func redactValueStart(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\\\"'&#;:=0123456789", b[i]) >= 0 {
		i++
	}
	for i < len(b) && 'a' <= b[i] && b[i] <= 'z' {
		i++
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// redactBoundary reports whether a secret may start at b[i]: not inside a
// word (so "xsk-…" or "task-…" is not a key) and not inside a JSON escape
// (so "\rk_live_…", a carriage return and "k_live_…", is not cut), but
// right after an escape such as \n or \u003e.
func redactBoundary(b []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch c := b[i-1]; {
	case c == '\\':
		return redactBackslashes(b, i-1)%2 == 0
	case c == 'n' || c == 'r' || c == 't':
		if i >= 2 && b[i-2] == '\\' && redactBackslashes(b, i-2)%2 == 1 {
			return true
		}
	}
	if i >= 6 && b[i-6] == '\\' && b[i-5] == 'u' && redactHex(b[i-4]) && redactHex(b[i-3]) &&
		redactHex(b[i-2]) && redactHex(b[i-1]) && redactBackslashes(b, i-6)%2 == 1 {
		return true
	}
	c := b[i-1]
	return !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')
}

func redactHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// redactBackslashes counts the run of backslashes ending at b[i].
func redactBackslashes(b []byte, i int) int {
	n := 0
	for ; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n
}

// redactPEM masks the body of a PEM block that starts at b[i], right after
// the BEGIN line's dashes, one token at a time: each run of base64 (or
// header) characters becomes a redaction and the separators between them,
// real line breaks or JSON's two-byte \n, stay as they are. It stops at
// the END line, at anything that is not key material (a quote ending the
// JSON string, a redaction, prose), so a key without its END line is
// still masked. It returns the end of the last token masked, where the
// search for the next BEGIN line resumes: not where the scan stopped,
// which may be inside that line ("\-----BEGIN" is read as the escape
// "\-" and then "----BEGIN").
func redactPEM(b []byte, i int, mask func(s, e int)) int {
	end := i
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '\\':
			// A JSON escape, skipped whole: \uXXXX or \ and one byte.
			if i+1 < len(b) && b[i+1] == 'u' {
				i += 6
			} else {
				i += 2
			}
			continue
		}
		j := i
		for j < len(b) && redactPEMChar(b[j]) {
			j++
		}
		if j == i || b[i] == '-' || j < len(b) && !redactPEMSep(b[j]) ||
			bytes.Contains(b[i:j], []byte("-----")) {
			break
		}
		mask(i, j)
		i, end = j, j
	}
	return end
}

// redactPEMChar reports whether c may be in a PEM body token: base64, and
// the '-', ':' and ',' of headers such as "Proc-Type: 4,ENCRYPTED".
func redactPEMChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
		c == '+' || c == '/' || c == '=' || c == '-' || c == ':' || c == ','
}

// redactPEMSep reports whether c may end a PEM body token.
func redactPEMSep(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\\' ||
		c == '"' || c == '\'' || c == '`' || c == '<' || c == '>'
}
