package backing

import (
	"math"
	"strconv"
	"strings"
)

// The shapes of usage UsageOf reads, one function each. A stored message
// is the normalized one with the agent's own line under "source"; each
// reader walks only the members it needs, with keys matched exactly as the
// store matches them (EachMember), and decodes nothing else.
//
//   - Appended: a top-level "usage" object in sessfs's own terms (input,
//     output, cache_read, cache_write, reasoning: see Usage) and a
//     top-level "model". Key: the message's id.
//   - Claude Code: source.message.usage on assistant lines (input_tokens,
//     output_tokens, cache_creation_input_tokens, cache_read_input_tokens);
//     the model is source.message.model. Key: source.message.id, which
//     every line of one API response shares and repeats the usage on.
//   - Codex: event_msg token_count events, info.last_token_usage for the
//     request (info is null before the first), and, in newer versions,
//     token_usage_record lines, whose usage is the same request's again.
//     Key: the thread's running total after the request
//     (info.total_token_usage, thread_token_usage), so that a token_count
//     repeated without a request in between (Codex writes one at every
//     turn_context), and the record and the event of one request, count
//     once. Neither names the model: turn_context (and session_meta, in
//     versions that put it there) does, and a Stream carries it to the
//     counts after it.
//   - Gemini CLI: a message's "tokens" (input, output, cached, thoughts,
//     tool) and "model"; or the API's usageMetadata (promptTokenCount,
//     candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount,
//     toolUsePromptTokenCount) and model or modelVersion. Key: the
//     message's id (Gemini CLI writes a message again each time it
//     updates it), or the response's responseId.

// usageFacts is what readUsage finds in one stored message.
type usageFacts struct {
	u     Usage
	model string
	key   string
	ts    string // the message's "ts", for Spend.Time
}

func readUsage(line []byte) (f usageFacts) {
	// EachMember trusts its input to be valid JSON; stored messages are,
	// but UsageOf is for any caller.
	if valid, _ := ScanJSON(line); !valid {
		return f
	}
	var id, event string
	var usage, source, data []byte
	EachMember(line, func(k string, v []byte) {
		switch k {
		case "event":
			event = stringOf(v)
		case "data":
			data = v
		case "id":
			id = stringOf(v)
		case "ts":
			f.ts = stringOf(v)
		case "model":
			f.model = stringOf(v)
		case "usage":
			usage = v
		case "source":
			source = v
		}
	})
	if (event == EventUsage || event == EventConfigChanged) && FirstByte(data) == '{' && source == nil {
		if m := eventString(data, "model"); m != "" {
			f.model = m
		}
		if event == EventConfigChanged {
			return f
		}
		usage = data
	}
	if FirstByte(usage) == '{' {
		n := counts(usage, "input", "output", "cache_read", "cache_write", "reasoning")
		f.u = Usage{Input: n[0], Output: n[1], CacheRead: n[2], CacheWrite: n[3], Reasoning: n[4]}
		if id != "" {
			f.key = "id:" + id
		}
		return f
	}
	if FirstByte(source) == '{' {
		u, model, key := sourceUsage(source)
		f.u, f.key = u, key
		if model != "" { // the agent's own record names the model best
			f.model = model
		}
	}
	return f
}

// sourceUsage reads the usage of an agent's own line.
func sourceUsage(src []byte) (u Usage, model, key string) {
	var typ, id, responseID, requestID, modelVersion string
	var message, payload, tokens, meta []byte
	EachMember(src, func(k string, v []byte) {
		switch k {
		case "type":
			typ = stringOf(v)
		case "message":
			message = v
		case "payload":
			payload = v
		case "tokens":
			tokens = v
		case "usageMetadata":
			meta = v
		case "model":
			model = stringOf(v)
		case "modelVersion":
			modelVersion = stringOf(v)
		case "id":
			id = stringOf(v)
		case "responseId":
			responseID = stringOf(v)
		case "requestId":
			requestID = stringOf(v)
		}
	})
	switch {
	case FirstByte(message) == '{':
		return claudeUsage(message, requestID)
	case FirstByte(payload) == '{':
		return codexUsage(typ, payload)
	case FirstByte(tokens) == '{':
		n := counts(tokens, "input", "output", "cached", "thoughts", "tool")
		return geminiUsage(n), model, prefixed("gemini:", id)
	case FirstByte(meta) == '{':
		n := counts(meta, "promptTokenCount", "candidatesTokenCount", "cachedContentTokenCount", "thoughtsTokenCount", "toolUsePromptTokenCount")
		if model == "" {
			model = modelVersion
		}
		if responseID != "" {
			id = responseID
		}
		return geminiUsage(n), model, prefixed("gemini:", id)
	}
	return Usage{}, model, ""
}

// claudeUsage reads an Anthropic message: its usage, model and id (the
// line's requestId stands in for a missing id).
func claudeUsage(message []byte, requestID string) (u Usage, model, key string) {
	var id string
	var usage []byte
	EachMember(message, func(k string, v []byte) {
		switch k {
		case "id":
			id = stringOf(v)
		case "model":
			model = stringOf(v)
		case "usage":
			usage = v
		}
	})
	if FirstByte(usage) != '{' {
		return Usage{}, model, ""
	}
	n := counts(usage, "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
	if id == "" {
		id = requestID
	}
	return Usage{Input: n[0], Output: n[1], CacheWrite: n[2], CacheRead: n[3]}, model, prefixed("claude:", id)
}

// codexUsage reads a Codex rollout line of type typ by its payload.
func codexUsage(typ string, payload []byte) (u Usage, model, key string) {
	var ptype string
	var info, usage, thread []byte
	EachMember(payload, func(k string, v []byte) {
		switch k {
		case "type":
			ptype = stringOf(v)
		case "model":
			model = stringOf(v)
		case "info":
			info = v
		case "usage":
			usage = v
		case "thread_token_usage":
			thread = v
		}
	})
	switch {
	case typ == "event_msg" && ptype == "token_count":
		if FirstByte(info) != '{' {
			return Usage{}, "", "" // null before the first request
		}
		var total, last []byte
		EachMember(info, func(k string, v []byte) {
			switch k {
			case "total_token_usage":
				total = v
			case "last_token_usage":
				last = v
			case "model":
				model = stringOf(v)
			}
		})
		return openAIUsage(last), model, codexKey(total)
	case typ == "token_usage_record":
		return openAIUsage(usage), model, codexKey(thread)
	case typ == "turn_context" || typ == "session_meta":
		return Usage{}, model, ""
	}
	return Usage{}, "", ""
}

// openAIFields are the counts of an OpenAI usage object as Codex writes
// it, and total_tokens, which codexKey adds.
var openAIFields = []string{"input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"}

// openAIUsage reads an OpenAI usage object. Its input_tokens counts the
// cached tokens too (and, we take it, those written to a cache, which
// newer Codex reports apart and the samples only show as 0): they are
// taken out, so that Input is the plain input as for Anthropic. Its
// output_tokens counts reasoning too, as Output does.
func openAIUsage(obj []byte) Usage {
	if FirstByte(obj) != '{' {
		return Usage{}
	}
	n := counts(obj, openAIFields...)
	return Usage{Input: max(0, n[0]-n[1]-n[2]), CacheRead: n[1], CacheWrite: n[2], Output: n[3], Reasoning: n[4]}
}

// codexKey names a Codex request by the thread's running total after it.
func codexKey(total []byte) string {
	if FirstByte(total) != '{' {
		return ""
	}
	var b strings.Builder
	b.WriteString("codex:")
	for i, n := range counts(total, openAIFields...) {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(strconv.FormatInt(n, 10))
	}
	return b.String()
}

// geminiUsage maps Gemini's counts (prompt, candidates, cached, thoughts,
// tool-use prompt, in that order): the prompt count includes the cached
// tokens, and thoughts are output billed as output but not counted in
// the candidates.
func geminiUsage(n []int64) Usage {
	return Usage{Input: max(0, n[0]-n[2]) + n[4], CacheRead: n[2], Output: n[1] + n[3], Reasoning: n[3]}
}

// counts reads the integer members names of a JSON object, in the order
// of names: 0 for a member that is absent, not a number, or negative.
func counts(obj []byte, names ...string) []int64 {
	out := make([]int64, len(names))
	EachMember(obj, func(k string, v []byte) {
		for i, name := range names {
			if k == name {
				out[i] = count(v)
			}
		}
	})
	return out
}

func count(v []byte) int64 {
	s := strings.TrimSpace(string(v))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return max(0, n)
	}
	// 12.0 or 1e3: an encoder's float, still a count.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > math.MaxInt64/2 {
		return 0
	}
	return int64(f)
}

func prefixed(prefix, id string) string {
	if id == "" {
		return ""
	}
	return prefix + id
}
