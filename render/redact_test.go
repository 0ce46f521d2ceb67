package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sessfs/sessfs/integration/realdata"
)

// redacted is the redaction of a rule, to keep the tables short.
func redacted(rule string) string { return "[REDACTED:" + rule + "]" }

// Made-up secrets for the tables, split so that secret scanners do not
// flag this file.
var (
	redactAKIA      = "AKIA" + "ZZEXAMPLE0123456"
	redactGHP       = "ghp_" + "ZZEXAMPLE0123456789abcdefghijklmnopq"
	redactAnthropic = "sk-ant-" + "api03-ZZEXAMPLE_0123456789-abcdefghijklmnopqrstuvwxyz"
	redactOpenAI    = "sk-" + "ZZEXAMPLE0123456789abcdefghijklmnopqrstuvwxyz0123"
	redactJWT       = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiJaWiJ9.ZZEXAMPLEsig_0123456789"
	redactBegin     = "-----BEGIN RSA " + "PRIVATE KEY-----"
	redactEnd       = "-----END RSA " + "PRIVATE KEY-----"
)

// TestRedactRules checks every rule on its own Example: the whole
// Redact masks it with that rule's name and no other.
func TestRedactRules(t *testing.T) {
	want := map[string]string{
		"private-key":       redactBegin + "\n" + redacted("private-key") + "\n" + redacted("private-key") + "\n" + redactEnd,
		"aws-access-key":    redacted("aws-access-key"),
		"aws-secret-key":    "aws_secret_access_key = " + redacted("aws-secret-key"),
		"github-token":      redacted("github-token"),
		"gitlab-token":      redacted("gitlab-token"),
		"slack-token":       redacted("slack-token"),
		"stripe-key":        redacted("stripe-key"),
		"anthropic-key":     redacted("anthropic-key"),
		"openai-key":        redacted("openai-key"),
		"google-api-key":    redacted("google-api-key"),
		"jwt":               redacted("jwt"),
		"url-password":      "postgres://admin:" + redacted("url-password") + "@db.example.com:5432/app",
		"auth-header":       "Authorization: Bearer " + redacted("auth-header"),
		"secret-assignment": "password=" + redacted("secret-assignment"),
	}
	if len(want) != len(RedactRules) {
		t.Errorf("%d rules, %d cases", len(RedactRules), len(want))
	}
	names := map[string]bool{}
	for _, r := range RedactRules {
		t.Run(r.Name, func(t *testing.T) {
			if names[r.Name] {
				t.Fatalf("duplicate rule name")
			}
			names[r.Name] = true
			if r.Example == "" || r.What == "" || r.re == nil {
				t.Fatalf("rule is missing its Example, What or regexp")
			}
			if strings.ContainsAny(r.Name, "\"\\<>\n") {
				t.Fatalf("name %q would break the byte invariants", r.Name)
			}
			got := string(Redact([]byte(r.Example)))
			if w, ok := want[r.Name]; !ok {
				t.Errorf("no expected output")
			} else if got != w {
				t.Errorf("Redact(%q)\n got %q\nwant %q", r.Example, got, w)
			}
			if labels := regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`).FindAllString(got, -1); len(labels) == 0 {
				t.Errorf("nothing masked in %q", got)
			} else {
				for _, l := range labels {
					if l != redacted(r.Name) {
						t.Errorf("%q masked as %s", r.Example, l)
					}
				}
			}
			if again := string(Redact([]byte(got))); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

// redactCases are inputs in the shapes Redact meets (Markdown, JSON
// strings with escapes, HTML) with their expected output; a case whose
// want is "" must stay unchanged.
var redactCases = []struct{ name, in, want string }{
	// One or more per rule, in context.
	{"aws access key in JSON", `{"text":"key \"` + redactAKIA + `\" end"}`, `{"text":"key \"` + redacted("aws-access-key") + `\" end"}`},
	{"aws session key", "ASIA" + "ZZEXAMPLE0123456,", redacted("aws-access-key") + ","},
	{"aws access key after \\n", `"a\n` + redactAKIA + `\nb"`, `"a\n` + redacted("aws-access-key") + `\nb"`},
	{"aws secret env", "export AWS_SECRET_ACCESS_KEY=" + "ZZEXAMPLE/K7MDENG/bPxRfiCYEXAMPLEKEY0123", "export AWS_SECRET_ACCESS_KEY=" + redacted("aws-secret-key")},
	{"aws secret JSON", `{"SecretAccessKey": "` + "ZZEXAMPLE/K7MDENG/bPxRfiCYEXAMPLEKEY0123" + `"}`, `{"SecretAccessKey": "` + redacted("aws-secret-key") + `"}`},
	{"github token in prose", "use " + redactGHP + " here.", "use " + redacted("github-token") + " here."},
	{"github fine-grained", "github_pat_" + "11ZZEXAMPLE0123456789_abcdefghijklmnopqrstuvwxyz", redacted("github-token")},
	{"github token in URL user", "https://" + redactGHP + ":x-oauth-basic@github.com/o/r", "https://" + redacted("github-token") + ":x-oauth-basic@github.com/o/r"},
	{"gitlab", "GITLAB=glpat-" + "ZZEXAMPLE_0123456789", "GITLAB=" + redacted("gitlab-token")},
	{"slack", "xoxp-" + "1234-5678-ZZEXAMPLE", redacted("slack-token")},
	{"stripe restricted", "rk_live_" + "ZZEXAMPLE0123456789", redacted("stripe-key")},
	{"anthropic not openai", "ANTHROPIC_API_KEY=" + redactAnthropic, "ANTHROPIC_API_KEY=" + redacted("anthropic-key")},
	{"openai legacy", "key " + redactOpenAI, "key " + redacted("openai-key")},
	{"openai project", "sk-proj-" + "ZZEXAMPLE_0123456789-abcdef", redacted("openai-key")},
	{"openai after escaped newline", `"x\n` + redactOpenAI + `"`, `"x\n` + redacted("openai-key") + `"`},
	{"openai after escaped backslash", `"C:\\` + redactOpenAI + `"`, `"C:\\` + redacted("openai-key") + `"`},
	{"google", "AIza" + "ZZEXAMPLE_0123456789-abcdefghijklmn", redacted("google-api-key")},
	{"jwt as bearer", "Authorization: Bearer " + redactJWT, "Authorization: Bearer " + redacted("jwt")},
	{"pem markdown", redactBegin + "\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLI\nnFEX6Ppy1tPf9Cnzj4p4WGeKLs==\n" + redactEnd + "\n",
		redactBegin + "\n" + redacted("private-key") + "\n" + redacted("private-key") + "\n" + redactEnd + "\n"},
	{"pem JSON", `{"k":"` + redactBegin + `\nMIIBOgIBAAJBAKj34Gkx\nFhD90vcN+/==\n` + redactEnd + `\n"}`,
		`{"k":"` + redactBegin + `\n` + redacted("private-key") + `\n` + redacted("private-key") + `\n` + redactEnd + `\n"}`},
	{"pem CRLF", redactBegin + "\r\nMIIBOgIBAAJBAKj34Gkx\r\n" + redactEnd, redactBegin + "\r\n" + redacted("private-key") + "\r\n" + redactEnd},
	{"pem one line", redactBegin + " MIIBOgIBAAJBAKj34Gkx " + redactEnd, redactBegin + " " + redacted("private-key") + " " + redactEnd},
	{"pem truncated", `"` + redactBegin + `\nMIIBOgIBAAJBAKj34Gkx\nFhD90vcN"`, `"` + redactBegin + `\n` + redacted("private-key") + `\n` + redacted("private-key") + `"`},
	{"pem encrypted headers", "-----BEGIN ENCRYPTED " + "PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIB\n-----END ENCRYPTED " + "PRIVATE KEY-----",
		"-----BEGIN ENCRYPTED " + "PRIVATE KEY-----\n" + redacted("private-key") + " " + redacted("private-key") + "\n\n" + redacted("private-key") + "\n-----END ENCRYPTED " + "PRIVATE KEY-----"},
	{"pem twice after an escape", "-----BEGIN RSA " + "PRIVATE KEY-----" + redactOpenAI + `\` + redactBegin + "sk-proj-",
		"-----BEGIN RSA " + "PRIVATE KEY-----" + redacted("private-key") + `\` + redactBegin + redacted("private-key")},
	{"pem openssh", "-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH " + "PRIVATE KEY-----",
		"-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + redacted("private-key") + "\n-----END OPENSSH " + "PRIVATE KEY-----"},
	{"url password", "postgres://app:s3cr3t:pw@db:5432/x", "postgres://app:" + redacted("url-password") + "@db:5432/x"},
	{"url password no user", "redis://:hunter2@localhost:6379", "redis://:" + redacted("url-password") + "@localhost:6379"},
	{"auth basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic " + redacted("auth-header")},
	{"auth JSON header", `{"headers":{"Authorization":"Token ZZEXAMPLEtoken0"}}`, `{"headers":{"Authorization":"Token ` + redacted("auth-header") + `"}}`},
	{"auth curl", `curl -H 'authorization: bearer ZZEXAMPLE01234' https://x`, `curl -H 'authorization: bearer ` + redacted("auth-header") + `' https://x`},
	{"auth escaped JSON", `"-H \"Authorization: Bearer ZZEXAMPLE01234\""`, `"-H \"Authorization: Bearer ` + redacted("auth-header") + `\""`},
	{"assign =", "password=hunter2hunter2", "password=" + redacted("secret-assignment")},
	{"assign :", "Secret: correct-horse-battery", "Secret: " + redacted("secret-assignment")},
	{"assign JSON", `{"api_key": "ZZEXAMPLE0123"}`, `{"api_key": "` + redacted("secret-assignment") + `"}`},
	{"assign quoted", `API_KEY="ZZEXAMPLE0123"`, `API_KEY="` + redacted("secret-assignment") + `"`},
	{"assign single quoted", `{'client_secret': 'ZZEXAMPLE0123'}`, `{'client_secret': '` + redacted("secret-assignment") + `'}`},
	{"assign escaped JSON", `"{\"access_token\": \"ZZEXAMPLE0123\"}"`, `"{\"access_token\": \"` + redacted("secret-assignment") + `\"}"`},
	{"assign doubly escaped", `"{\\\"passwd\\\":\\\"ZZEXAMPLE0123\\\"}"`, `"{\\\"passwd\\\":\\\"` + redacted("secret-assignment") + `\\\"}"`},
	{"assign suffix", "DB_PASSWORD=ZZEXAMPLE0123 ./run", "DB_PASSWORD=" + redacted("secret-assignment") + " ./run"},
	{"assign header", "x-api-key: ZZEXAMPLE0123", "x-api-key: " + redacted("secret-assignment")},
	{"assign go", `token := "ZZEXAMPLE0123"`, `token := "` + redacted("secret-assignment") + `"`},
	{"assign yaml", "auth_token:\tZZEXAMPLE0123\n", "auth_token:\t" + redacted("secret-assignment") + "\n"},
	{"assign secret_key", "SECRET_KEY = 'ZZEXAMPLE0123'", "SECRET_KEY = '" + redacted("secret-assignment") + "'"},
	{"assign private_key", "private_key=ZZEXAMPLE0123;", "private_key=" + redacted("secret-assignment")},
	{"assign markdown code", "set `apikey=ZZEXAMPLE0123`.", "set `apikey=" + redacted("secret-assignment") + "`."},
	{"assign HTML", "<code>password=&#34;ZZEXAMPLE0123&#34;</code>", "<code>password=&#34;" + redacted("secret-assignment") + "&#34;</code>"},
	{"assign HTML JSON", "<pre>{&#34;token&#34;: &#34;ZZEXAMPLE0123&#34;, &#34;n&#34;: 1}</pre>", "<pre>{&#34;token&#34;: &#34;" + redacted("secret-assignment") + "&#34;, &#34;n&#34;: 1}</pre>"},
	{"assign HTML single", "api_key=&#39;ZZEXAMPLE0123&#39;", "api_key=&#39;" + redacted("secret-assignment") + "&#39;"},
	{"assign HTML empty", "password: &#34;&#34; and token: &#39;&#39;", ""},
	{"auth HTML", "<td>&#34;Authorization: Bearer ZZEXAMPLE0123&#34;</td>", "<td>&#34;Authorization: Bearer " + redacted("auth-header") + "&#34;</td>"},
	{"assign after escaped newline", `"a\npassword=ZZEXAMPLE0123\nb"`, `"a\npassword=` + redacted("secret-assignment") + `\nb"`},
	{"assign two", "password=ZZEXAMPLE0123 token=ZZEXAMPLE4567", "password=" + redacted("secret-assignment") + " token=" + redacted("secret-assignment")},
	{"assign far value", "password:" + strings.Repeat(" ", 100) + "ZZEXAMPLE0123", "password:" + strings.Repeat(" ", 100) + redacted("secret-assignment")},
	{"assign long value", "token=" + strings.Repeat("ZZEXAMPLE0", 100) + " end", "token=" + redacted("secret-assignment") + " end"},
	{"auth far value", "Authorization: Bearer" + strings.Repeat(" ", 100) + "ZZEXAMPLE0123", "Authorization: Bearer" + strings.Repeat(" ", 100) + redacted("auth-header")},
	{"assign specific first", "token=" + redactGHP, "token=" + redacted("github-token")},

	// Left alone.
	{"uuid", "session 123e4567-e89b-12d3-a456-426614174000 ok", ""},
	{"git sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8", ""},
	{"prose", "Enter your password when prompted; the token expires. Secret: no.", ""},
	{"empty password", `password: ""`, ""},
	{"empty JSON password", `{"password":""}`, ""},
	{"go call", "token := tok.Next()", ""},
	{"go call =", "token = strings.TrimSpace(line)", ""},
	{"go index", "secret = secrets[index]", ""},
	{"go comparison", `if password == "hunter2hunter2" {`, ""},
	{"getenv", `password = os.Getenv("DB_PASSWORD")`, ""},
	{"shell variable", `TOKEN=$(gh auth token) PASSWORD=${DB_PASSWORD}`, ""},
	{"tokens count", `"tokens": 1234`, ""},
	{"usage", `{"input_tokens":12345678,"max_tokens":4096}`, ""},
	{"JSON number value", `{"token":123456789012}`, ""},
	{"JSON key and next value", `{"a":"token=","b":123456789012}`, ""},
	{"short value", "password=hunter2", ""},
	{"bearer variable", `-H "Authorization: Bearer $TOKEN" -H 'Authorization: Bearer ${API_KEY}'`, ""},
	{"bearer template", `headers={"Authorization": f"Bearer {api_key}"}`, ""},
	{"bearer placeholder", "Authorization: Bearer <token>", ""},
	{"url without password", "see https://user@example.com:8080/a:b@c and git@github.com:o/r.git", ""},
	{"sk inside a word", "risk-assessment-framework-document-v2 and task-0123456789abcdefghijklmnop", ""},
	{"akia inside a word", "x" + redactAKIA + " " + redactAKIA + "x", ""},
	{"escape before a prefix", `"\rk_live_` + "ZZEXAMPLE0123456789" + `"`, ""},
	{"public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----", ""},
	{"pem marker in prose", "Look for `" + redactBegin + "` in the file.", ""},
	{"already redacted", "password=" + redacted("secret-assignment") + " key " + redacted("openai-key") + " postgres://u:" + redacted("url-password") + "@h", ""},
	{"template secret", "token: ${{ secrets.GITHUB_TOKEN }}", ""},
	{"github short", "ghp_short and gho_", ""},
	{"jwt-like", "eyJhbGciOiJIUzI1NiJ9 alone", ""},
}

func TestRedact(t *testing.T) {
	for _, c := range redactCases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.in
			}
			got := Redact([]byte(c.in))
			if string(got) != want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, want)
			}
			checkRedact(t, []byte(c.in), got)
		})
	}
}

// TestRedactNoCopy checks that clean input is returned as is.
func TestRedactNoCopy(t *testing.T) {
	in := []byte("nothing to see here: password")
	if out := Redact(in); &out[0] != &in[0] {
		t.Errorf("clean input was copied")
	}
	if out := Redact(nil); len(out) != 0 {
		t.Errorf("Redact(nil) = %q", out)
	}
}

// TestRedactJSONL redacts a JSON-lines document whose string values hold
// secrets beside \n, \" and \u escapes, and checks that every line still
// parses, the secrets are gone and the rest of each value is intact.
func TestRedactJSONL(t *testing.T) {
	values := []string{
		"line one\nkey=" + redactAKIA + "\n\"quoted\" " + redactOpenAI + "\\",
		"```\n" + redactBegin + "\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLI\nnFEX6Ppy1tPf9Cnzj4p4WGeKLs==\n" + redactEnd + "\n```",
		`curl -H "Authorization: Bearer ZZEXAMPLE01234" -d '{"password": "ZZEXAMPLE0123"}'`,
		"<b>" + redactGHP + "</b> & postgres://u:ZZEXAMPLEpw@h/db",
		"\t" + redactAnthropic + "\r\n" + redactJWT + "\"",
		`{"api_key":"ZZEXAMPLE0123","n":1}`,
		"clean text, with a password mentioned and a token := tok.Next()",
	}
	secrets := []string{redactAKIA, redactOpenAI, "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLI", "ZZEXAMPLE01234", "ZZEXAMPLE0123", redactGHP, "ZZEXAMPLEpw", redactAnthropic, redactJWT}
	var doc bytes.Buffer
	for i, v := range values {
		line, err := json.Marshal(map[string]any{"i": i, "message": map[string]any{"content": []any{map[string]string{"type": "text", "text": v}}}})
		if err != nil {
			t.Fatal(err)
		}
		doc.Write(line)
		doc.WriteByte('\n')
		// The same value as written by hand, without Go's \u003c escapes.
		fmt.Fprintf(&doc, "{\"text\":%s}\n", strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(redactMarshal(t, v))))
	}
	out := Redact(doc.Bytes())
	checkRedact(t, doc.Bytes(), out)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 2*len(values) {
		t.Fatalf("%d lines out, %d in", len(lines), 2*len(values))
	}
	for i, line := range lines {
		var v struct {
			Text    string
			Message struct{ Content []struct{ Text string } }
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d no longer parses: %v\n%s", i, err, line)
		}
		text := v.Text
		if i%2 == 0 {
			text = v.Message.Content[0].Text
		}
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("line %d still holds %q: %q", i, s, text)
			}
		}
		// Masking keeps every line break, quote and backslash of the value.
		orig := values[i/2]
		for _, c := range "\n\"\\<>" {
			if strings.Count(text, string(c)) != strings.Count(orig, string(c)) {
				t.Errorf("line %d: count of %q changed: %q", i, c, text)
			}
		}
	}
	if !strings.Contains(lines[len(lines)-1], "token := tok.Next()") {
		t.Errorf("clean value changed: %s", lines[len(lines)-1])
	}
}

func redactMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRedactRealData redacts every file of the sample sessions: nothing
// panics, each line that was valid JSON stays valid JSON, and a second
// pass changes nothing.
func TestRedactRealData(t *testing.T) {
	files, masked := 0, map[string]int{}
	for _, path := range realData(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files++
		out := Redact(in)
		checkRedact(t, in, out)
		inLines, outLines := bytes.Split(in, []byte("\n")), bytes.Split(out, []byte("\n"))
		for i := range inLines {
			if json.Valid(inLines[i]) && !json.Valid(outLines[i]) {
				t.Errorf("%s:%d: no longer valid JSON:\n%s", path, i+1, outLines[i])
			}
		}
		for _, r := range RedactRules {
			if n := bytes.Count(out, []byte(redacted(r.Name))) - bytes.Count(in, []byte(redacted(r.Name))); n > 0 {
				masked[r.Name] += n
				t.Logf("%s: %d × %s", filepath.Base(path), n, r.Name)
			}
		}
	}
	t.Logf("redacted %d files: %v", files, masked)
}

// checkRedact checks the invariants of out = Redact(in): the bytes
// that hold JSON, Markdown and HTML structure are all still there, valid
// JSON and UTF-8 stay valid, and Redact(out) is out.
func checkRedact(t *testing.T, in, out []byte) {
	t.Helper()
	for _, c := range []byte("\"\\<>\n") {
		if n, m := bytes.Count(in, []byte{c}), bytes.Count(out, []byte{c}); n != m {
			t.Fatalf("%d × %q became %d:\n in %q\nout %q", n, c, m, in, out)
		}
	}
	if json.Valid(in) && !json.Valid(out) {
		t.Fatalf("valid JSON became invalid:\n in %q\nout %q", in, out)
	}
	if utf8.Valid(in) && !utf8.Valid(out) {
		t.Fatalf("valid UTF-8 became invalid:\n in %q\nout %q", in, out)
	}
	if again := Redact(bytes.Clone(out)); !bytes.Equal(again, out) {
		t.Fatalf("not idempotent:\n  in %q\n out %q\nout2 %q", in, out, again)
	}
}

func FuzzRedact(f *testing.F) {
	for _, r := range RedactRules {
		f.Add([]byte(r.Example))
		f.Add(redactJSONValue(r.Example))
	}
	for _, c := range redactCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(`{"a":"password=\"abc\\\"defgh\" token: \u0041KIA` + "ZZEXAMPLE0123456" + `"}`))
	f.Add([]byte("secret_key=" + redactBegin + "\\nAB\\\\nCD\\u0041\"" + redactEnd))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkRedact(t, in, Redact(bytes.Clone(in)))
	})
}

func redactJSONValue(s string) []byte {
	b, _ := json.Marshal(map[string]string{"text": s})
	return b
}

// BenchmarkRedact redacts about 10 MB of session-like text: the sample
// sessions (when present) and generated Markdown and JSON lines, with a
// secret every few lines.
func BenchmarkRedact(b *testing.B) {
	var seed bytes.Buffer
	paths, _ := realdata.Files()
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			seed.Write(data)
		}
	}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&seed, "## Turn %d\n\nThe password field is validated; the token count was %d.\n\n```go\ntoken := tok.Next()\nif err != nil {\n\treturn fmt.Errorf(\"read %%s: %%w\", name, err)\n}\n```\n\n", i, i*1000)
		fmt.Fprintf(&seed, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Ran the tests.\nAll %d passed; see https://example.com/runs/%d and commit 9fceb02d0ae598e95dc970b74767f19372d61af8."}],"usage":{"input_tokens":%d,"output_tokens":%d}}}`+"\n", i, i, i*7, i*3)
		if i%10 == 0 {
			fmt.Fprintf(&seed, `{"type":"user","message":{"content":"export OPENAI_API_KEY=%s\nDB_PASSWORD=ZZEXAMPLE%04d psql postgres://app:pw%d@db/x"}}`+"\n", redactOpenAI, i, i)
		}
	}
	var in []byte
	for len(in) < 10<<20 {
		in = append(in, seed.Bytes()...)
	}
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		Redact(in)
	}
}

// TestRedactPieces checks the invariants of checkRedact, and that the
// hinted rules find what their regexps find (checkHints), on inputs glued
// from pieces of secrets, names, separators, quotes and escapes, which
// random bytes seldom spell. The long mode (SESSFS_TEST_LONG=1) tries
// 2,000,000 inputs from a new seed.
func TestRedactPieces(t *testing.T) {
	pieces := []string{
		"password", "PASSWD", "secret", "_key", "api-key", "token", "access_token", "client_secret", "Authorization", "aws_secret_access_key",
		"=", ":", ":=", " ", "\t", "\n", "\r\n", `"`, `'`, "`", `\`, `\"`, `\\`, `\n`, `\u003e`, `\r`, "&#34;", "<", ">", "(", ")", "[", "]", "{", "}", ",", ";", "$", "-", ".", "/", "@", "://", "u:", "https://a:",
		"Bearer ", "basic ", "ZZEXAMPLE", "0123456789", "abcdefgh", "AKIA", "ASIA", "ZZEXAMPLE0123456", "ghp_", "github_pat_", "glpat-", "xoxb-", "sk_live_", "rk_live_", "sk-", "sk-ant-", "sk-proj-", "AIza", "eyJ", "eyJhbGciOiJIUzI1NiJ9.", "ey",
		"-----BEGIN RSA " + "PRIVATE KEY-----", "-----END RSA " + "PRIVATE KEY-----", "-----", "MIIBOgIBAAJBAKj34Gkx", "+/==", "Proc-Type: 4,ENCRYPTED",
		redactAKIA, redactGHP, redactOpenAI, redactAnthropic, redactJWT, redacted("openai-key"), redacted("secret-assignment"), "[REDACTED:", "é", "\xff",
		strings.Repeat("A", 70), strings.Repeat(" ", 70), "key", "Token", "x", "_",
	}
	seed, n := uint64(1), 5000
	if os.Getenv("SESSFS_TEST_LONG") == "1" {
		seed, n = uint64(time.Now().UnixNano()), 2000000
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	var in strings.Builder
	for range n {
		in.Reset()
		for range 1 + rng.IntN(16) {
			in.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkRedact(t, []byte(in.String()), Redact([]byte(in.String())))
		checkHints(t, []byte(in.String()))
		// The same text as a JSON string value.
		v := redactJSONValue(in.String())
		checkRedact(t, v, Redact(bytes.Clone(v)))
	}
}

// checkHints checks that each rule that looks for hint words finds what
// its regexp finds over the whole input.
func checkHints(t *testing.T, in []byte) {
	t.Helper()
	for i := range RedactRules {
		r := &RedactRules[i]
		if _, ok := redactHints[r.Name]; !ok {
			continue
		}
		x := &redactor{b: in, name: r.Name}
		redactScan(x, r)
		if got, want := redactRule(in, r, &redactLower{}), x.result(); !bytes.Equal(got, want) {
			t.Fatalf("%s: hints give\n%q\nthe whole input\n%q\nfor %q", r.Name, got, want, in)
		}
	}
}

// Text dense with hint words followed by ':' or '=' but no value runs no
// regexp for them: 1 MiB of "token: " took 2 to 4 s, which made
// transcript.redacted.md of such a message slow to read.
func TestRedactDenseHints(t *testing.T) {
	limit := time.Second
	if raceDetector {
		limit *= 5
	}
	for _, unit := range []string{"token: ", "password: x ", `"secret": 1, `, "Authorization: x "} {
		in := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
		start := time.Now()
		out := Redact(in)
		if d := time.Since(start); d > limit {
			t.Errorf("Redact of 1 MiB of %q took %v, more than %v", unit, d, limit)
		}
		if !bytes.Equal(out, in) {
			t.Errorf("Redact of %q masked something", unit)
		}
	}
}

// redactHasValue is a quick test of what redactValueChar accepts: were
// they to differ on a byte, a secret the rules match could be skipped.
// (A byte of 0x80 or more reaches the regexp as part of a rune or as
// U+FFFD, which the class accepts either way.)
func TestRedactHasValueAgreesWithValueChar(t *testing.T) {
	char := regexp.MustCompile(`\A` + redactValueChar + `\z`)
	for c := 0; c < 256; c++ {
		b := bytes.Repeat([]byte{byte(c)}, 8)
		if got, want := redactHasValue(b, 0, len(b)), char.Match(b[:1]); got != want {
			t.Errorf("byte %#02x: redactHasValue %v, redactValueChar %v", c, got, want)
		}
		// Each of the 8 bytes counts, not only the first.
		b = bytes.Repeat([]byte{'a'}, 8)
		b[7] = byte(c)
		if got, want := redactHasValue(b, 0, len(b)), char.Match(b[7:]); got != want {
			t.Errorf("byte %#02x last: redactHasValue %v, redactValueChar %v", c, got, want)
		}
	}
}
