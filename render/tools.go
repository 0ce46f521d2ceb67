package render

import (
	"encoding/json"
	"strconv"
	"strings"
)

// tools.go knows what the tools of Claude Code and Codex take and give
// back, beside shapes.go, which knows the blocks that carry them: the
// argument that says what a call does, a to-do list, the files a patch
// touches, and whether a command's output says it failed.

// argKeys are the input fields that say what a call does, in the order they
// are tried: Bash's command, Codex exec_command's cmd, Read/Write/Edit/
// MultiEdit's file_path, NotebookEdit's notebook_path, Glob/Grep's pattern,
// WebSearch's query, WebFetch's url, LS's and view_image's path, and
// Task/Agent's description. Tools we do not know often use the same names.
var argKeys = []string{"command", "cmd", "file_path", "notebook_path", "pattern", "query", "url", "path", "description"}

// maxArg bounds the argument on a summary line, in runes; the whole input
// is shown below it.
const maxArg = 160

// keyArg returns the argument shown on a call's summary line, or "". in is
// the call's input when it is a JSON object, text its input when a plain
// string (Codex custom tools: apply_patch's input is the patch itself).
func keyArg(name string, in object, text string) string {
	if name == "apply_patch" {
		if text == "" {
			text, _ = in.str("input")
		}
		return shorten(patchFiles(text))
	}
	for _, k := range argKeys {
		if s, ok := in.str(k); ok && strings.TrimSpace(s) != "" {
			return shorten(s)
		}
		if argv, ok := stringArray(in.get(k)); ok && len(argv) > 0 {
			return shorten(commandLine(argv))
		}
	}
	return ""
}

// commandLine shows an argv as the command a person would type: the
// script of a shell's -c or -lc (what Codex runs), a patch's files for
// apply_patch, else the words joined by spaces.
func commandLine(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
		return argv[2]
	}
	if len(argv) == 2 && argv[0] == "apply_patch" {
		return "apply_patch " + patchFiles(argv[1])
	}
	return strings.Join(argv, " ")
}

// patchFiles lists the files an apply_patch patch adds, updates, deletes
// or moves to, in its order.
func patchFiles(patch string) string {
	var files []string
	for line := range strings.SplitSeq(patch, "\n") {
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), p); ok {
				files = append(files, f)
			}
		}
	}
	return strings.Join(files, ", ")
}

// shorten puts s on one line, trimmed, and cuts it at maxArg runes.
func shorten(s string) string {
	return clip(strings.TrimSpace(oneLine(s)), maxArg)
}

// stringArray decodes v when it is an array of strings.
func stringArray(v json.RawMessage) ([]string, bool) {
	items, ok := asArray(v)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		s, ok := asString(item)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// todo is one item of a to-do list: what, and pending, in_progress or
// completed.
type todo struct {
	text, status string
}

// todoList reads the list of Claude Code's TodoWrite (todos: content,
// status) or Codex's update_plan (plan: step, status). It reports false
// when the input is not such a list, so that it is shown as it is.
func todoList(name string, in object) ([]todo, bool) {
	listKey, textKey := "todos", "content"
	switch name {
	case "TodoWrite":
	case "update_plan":
		listKey, textKey = "plan", "step"
	default:
		return nil, false
	}
	items, ok := asArray(in.get(listKey))
	if !ok {
		return nil, false
	}
	list := make([]todo, 0, len(items))
	for _, item := range items {
		o, ok := parseObject(item)
		if !ok {
			return nil, false
		}
		text, ok1 := o.str(textKey)
		status, ok2 := o.str("status")
		if !ok1 || !ok2 {
			return nil, false
		}
		list = append(list, todo{text, status})
	}
	return list, true
}

// commandOutput reads the output Codex gives back for a command or a
// patch: either JSON, {"output": …, "metadata": {"exit_code": N, …}}, or
// text whose first lines say "Exit code: N" or "Process exited with code
// N". It returns the text to show (the output alone, for the JSON form)
// and the exit code when one is given.
func commandOutput(s string) (text string, exit int, hasExit bool) {
	if kind([]byte(s)) == '{' {
		if o, ok := parseObject([]byte(s)); ok {
			out, isStr := o.str("output")
			meta, isObj := parseObject(o.get("metadata"))
			if isStr && isObj {
				code, err := strconv.Atoi(string(meta.get("exit_code")))
				return out, code, err == nil
			}
		}
	}
	// The header lines come before "Output:"; a few are enough to look at.
	rest := s
	for range 8 {
		line, more, _ := strings.Cut(rest, "\n")
		line = strings.TrimSpace(line)
		if line == "Output:" {
			break
		}
		for _, p := range []string{"Exit code: ", "Process exited with code "} {
			if n, ok := strings.CutPrefix(line, p); ok {
				if code, err := strconv.Atoi(n); err == nil {
					return s, code, true
				}
			}
		}
		if more == "" {
			break
		}
		rest = more
	}
	return s, 0, false
}
