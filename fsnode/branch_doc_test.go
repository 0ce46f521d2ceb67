package fsnode

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"

	"github.com/sessfs/sessfs/backing"
)

// saveDoc writes doc to path as `cat > path` does: open, O_TRUNC, write,
// close; it returns the write's error, else the close's.
func saveDoc(k *kernel, path, doc string) syscall.Errno {
	h, errno := k.open(path, syscall.O_WRONLY)
	if errno != 0 {
		return errno
	}
	if _, errno := k.setattr(path, 0, truncIn(0)); errno != 0 {
		h.close()
		return errno
	}
	if _, errno := h.write(doc, 0); errno != 0 {
		h.close()
		return errno
	}
	return h.close()
}

// tasks.json and memory.json: {} until set; a document saved is shown
// indented and stored as an event of the branch, never counted as a
// message; saving it again unchanged stores nothing; what is no JSON
// object is refused; a fork has them as they were at its fork point, and
// each branch's are its own.
func TestBranchDocuments(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	for _, name := range []string{"tasks.json", "memory.json"} {
		if got := string(k.catFile("s/"+name, 4096)); got != "{}\n" {
			t.Errorf("a new session's %s = %q, want {}", name, got)
		}
		if a, errno := k.stat("s/" + name); errno != 0 || a.Size != 3 || a.Mode&0o777 != 0o644 {
			t.Errorf("stat %s = %+v, %v", name, a, errno)
		}
	}
	if err := s.AppendID("", [][]byte{[]byte(`{"role":"user","content":"q1"}`)}); err != nil {
		t.Fatal(err)
	}
	if errno := saveDoc(k, "s/tasks.json", `{"tasks":[{"title":"write the test","status":"in_progress"}]}`); errno != 0 {
		t.Fatalf("save tasks.json: %v", errno)
	}
	want := "{\n  \"tasks\": [\n    {\n      \"title\": \"write the test\",\n      \"status\": \"in_progress\"\n    }\n  ]\n}\n"
	if got := string(k.catFile("s/tasks.json", 4096)); got != want {
		t.Errorf("tasks.json = %q, want %q", got, want)
	}
	if a, _ := k.stat("s/tasks.json"); a.Size != uint64(len(want)) {
		t.Errorf("stat size %d, want %d", a.Size, len(want))
	}
	if got := string(k.catFile("s/memory.json", 4096)); got != "{}\n" {
		t.Errorf("memory.json changed with tasks.json: %q", got)
	}
	v, _ := s.ViewID("")
	if v.Len() != 2 || v.Visible() != 1 || len(v.Typed()) != 1 {
		t.Errorf("after one save: %d stored, %d visible, %d typed; want 2, 1, 1", v.Len(), v.Visible(), len(v.Typed()))
	}
	// The same document again, laid out otherwise: nothing stored.
	if errno := saveDoc(k, "s/tasks.json", want); errno != 0 {
		t.Fatal(errno)
	}
	if v, _ := s.ViewID(""); v.Len() != 2 {
		t.Errorf("saving the same document stored something: %d lines", v.Len())
	}
	for doc, errno := range map[string]syscall.Errno{`[1,2]`: syscall.EINVAL, `"text"`: syscall.EINVAL, `{"a":}`: syscall.EINVAL} {
		if got := saveDoc(k, "s/memory.json", doc); got != errno {
			t.Errorf("saving %s to memory.json: %v, want %v", doc, got, errno)
		}
	}
	if got := string(k.catFile("s/memory.json", 4096)); got != "{}\n" {
		t.Errorf("a refused save changed memory.json: %q", got)
	}

	// A fork has them as they were at its fork point.
	if errno := k.mkdir("s/branches/x"); errno != 0 {
		t.Fatal(errno)
	}
	if errno := saveDoc(k, "s/tasks.json", `{"tasks":[{"title":"write the test","status":"completed"}]}`); errno != 0 {
		t.Fatal(errno)
	}
	if got := string(k.catFile("s/branches/x/tasks.json", 4096)); got != want {
		t.Errorf("the fork's tasks.json = %q, want the one of its fork point %q", got, want)
	}
	if errno := saveDoc(k, "s/branches/x/memory.json", `{"facts":["x is a fork"]}`); errno != 0 {
		t.Fatal(errno)
	}
	if got := string(k.catFile("s/memory.json", 4096)); got != "{}\n" {
		t.Errorf("the fork's memory.json reached main: %q", got)
	}
	main, _ := s.ViewID("")
	x, _ := s.Branch("x")
	xv, _ := s.ViewID(x.ID)
	if doc, _, _ := backing.Document(main, backing.DocTasks); string(doc) != `{"tasks":[{"title":"write the test","status":"completed"}]}` {
		t.Errorf("main's tasks = %s", doc)
	}
	if doc, _, _ := backing.Document(xv, backing.DocMemory); string(doc) != `{"facts":["x is a fork"]}` {
		t.Errorf("x's memory = %s", doc)
	}
	// export.json holds the branch's.
	var export struct{ Tasks, Memory json.RawMessage }
	if err := json.Unmarshal(k.catFile("s/branches/x/export.json", 1<<16), &export); err != nil {
		t.Fatal(err)
	}
	if string(export.Memory) != `{"facts":["x is a fork"]}` || !strings.Contains(string(export.Tasks), `"in_progress"`) {
		t.Errorf("x's export.json has tasks %s, memory %s", export.Tasks, export.Memory)
	}
}

// An editor's temp-then-rename save of tasks.json replaces it, as for
// meta.json; an invalid one is refused and changes nothing.
func TestBranchDocumentRenameSave(t *testing.T) {
	st, s := testSession(t)
	k := newKernel(t, st, Options{})
	for _, c := range []struct {
		doc   string
		errno syscall.Errno
	}{{`{"tasks":[]}`, 0}, {`not json`, syscall.EINVAL}} {
		h, errno := k.create("s/.tasks.json.tmp", syscall.O_WRONLY)
		if errno != 0 {
			t.Fatal(errno)
		}
		h.write(c.doc, 0)
		h.close()
		if got := k.rename("s/.tasks.json.tmp", "s/tasks.json", 0); got != c.errno {
			t.Errorf("rename of %q onto tasks.json: %v, want %v", c.doc, got, c.errno)
		}
		k.rename("s/.tasks.json.tmp", "s/.tasks.json.old", 0) // out of the way
	}
	v, _ := s.ViewID("")
	if doc, _, _ := backing.Document(v, backing.DocTasks); string(doc) != `{"tasks":[]}` {
		t.Errorf("tasks after the saves = %s", doc)
	}
}
