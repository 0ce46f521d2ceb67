package agents

import (
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Message is one message of the history an agent sent, reduced to what
// tests compare across the three APIs.
type Message struct {
	Role        string   // "user", "assistant" or "system"
	Text        string   // the text parts, joined by newlines
	ToolCalls   []string // tool calls the message holds, as "name input-JSON"
	ToolResults []string // tool results the message holds, their output text
}

// Call is one model request an agent made: the history it sent and the
// tools it offered.
type Call struct {
	Path    string
	Stream  bool
	Tools   []string // the names of the tools offered
	History []Message
	Body    []byte // the request body, verbatim
	Reply   string // what the stand-in answered: "tool NAME" or the text
}

// Server is what the three stand-ins share: an HTTP server on 127.0.0.1
// that records every request, and the script of replies.
type Server struct {
	URL string // http://127.0.0.1:PORT

	t     testing.TB
	srv   *httptest.Server
	mu    sync.Mutex
	calls []Call
	other []string // requests that were not model calls: "METHOD path"
}

// start serves handle on 127.0.0.1 (never another interface: the
// tests must not listen on the network) until the test ends.
func start(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, body []byte)) *Server {
	t.Helper()
	s := &Server{t: t}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("stand-in: listen: %v", err)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		handle(w, r, body)
	}))
	s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// readBody reads a request body, gunzipped if the client compressed it.
func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = r.Body
	switch enc := r.Header.Get("Content-Encoding"); enc {
	case "", "identity":
	case "gzip":
		z, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, err
		}
		rd = z
	default:
		return nil, fmt.Errorf("stand-in: unknown Content-Encoding %q", enc)
	}
	return io.ReadAll(rd)
}

// Calls are the model requests so far, in the order they came.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ToolCalls are the model requests so far that offered tool: the agent's
// own loop, not its side requests (titles, routing, quota checks).
func (s *Server) ToolCalls(tool string) []Call {
	var out []Call
	for _, c := range s.Calls() {
		for _, name := range c.Tools {
			if name == tool {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Other are the requests that were not model calls, "METHOD path?query".
func (s *Server) Other() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.other...)
}

// record keeps a model call and returns the number of this reply.
func (s *Server) record(c Call) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
	return len(s.calls)
}

// setReply notes what the stand-in answered to call n (from record).
func (s *Server) setReply(n int, reply string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[n-1].Reply = reply
}

// unknown answers a request the stand-in has no script for with 404, and
// logs it: that is how a new CLI version's new endpoint shows up.
func (s *Server) unknown(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.other = append(s.other, r.Method+" "+r.URL.RequestURI())
	s.mu.Unlock()
	s.t.Logf("stand-in: no script for %s %s: 404", r.Method, r.URL.RequestURI())
	http.NotFound(w, r)
}

// note records a request the stand-in answers without the model.
func (s *Server) note(r *http.Request) {
	s.mu.Lock()
	s.other = append(s.other, r.Method+" "+r.URL.RequestURI())
	s.mu.Unlock()
}

// wantsTool says whether the script asks for a tool call now: when the
// last message is the user's own text (a prompt, not a tool's result) and
// the request offers the tool. A tool's result gets a text answer, and so
// does every request that does not offer the tool (titles, routing).
func wantsTool(c Call, tool string) bool {
	// Claude Code sends its environment as a system message after the
	// user's: the last message of the conversation is the last that is
	// not one.
	var last Message
	for i := len(c.History) - 1; i >= 0; i-- {
		if c.History[i].Role != "system" {
			last = c.History[i]
			break
		}
	}
	if last.Role != "user" || len(last.ToolResults) > 0 || strings.TrimSpace(last.Text) == "" {
		return false
	}
	for _, name := range c.Tools {
		if name == tool {
			return true
		}
	}
	return false
}

// answer is the text of reply n: numbered, so that a test can find which
// reply an agent kept.
func answer(n int) string {
	return fmt.Sprintf("Done: the folder is listed (reply %d).", n)
}

// sse writes one server-sent event and flushes it, so the client sees
// the stream arrive in pieces as from the real API.
func sse(w http.ResponseWriter, event string, data []byte) {
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}
