package llmstream

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
)

// A conversation may move from one dialect to another (a [Failover]
// falling back to another provider, or a caller switching): each encoder
// takes the messages through portable first. Continuity state of another
// dialect (thinking signatures, encrypted reasoning, containers) is left
// out by each encoder already, since it checks Continuity.Dialect; what is
// left is what the neutral fields carry from one provider that another
// refuses:
//
//   - tool-call ids: Bedrock takes [A-Za-z0-9_-]{1,64} (its ToolUseBlock
//     reference), Anthropic the same characters; and a conversation whose
//     provider reused ids across turns (Gemini sends none, and the calls
//     are numbered per turn) names two calls alike, which a provider that
//     matches answers by id cannot tell apart. Such ids are rewritten, the
//     same way every time, and each answer follows its call (when one
//     message names several calls alike, its n-th answer of that id goes
//     to its n-th call, so every call stays answered);
//   - a call's Extra: Anthropic's "caller" (a call made by code
//     execution) means nothing elsewhere, and chat, the one dialect that
//     sends Extra, would pass it on; it is dropped there. Gemini's thought
//     signature in Extra is kept: Gemini's own encoder reads it.

// maxPortableID is the longest tool-call id every dialect takes
// (Bedrock's bound).
const maxPortableID = 64

// portable returns msgs as dialect d takes them (see above): msgs itself,
// unchanged and not copied, when nothing needs rewriting, which is the
// common case; else a copy, the caller's messages untouched.
func portable(msgs []Message, d Dialect) []Message {
	if !needsPorting(msgs, d) {
		return msgs
	}
	out := make([]Message, len(msgs))
	copy(out, msgs)
	used := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	seen := map[string]bool{} // ids of calls met so far
	// current maps a call's id to the ids its latest message's calls of
	// that id are sent as, in order: the n-th answer goes to the n-th
	// (a message may name two calls alike), later ones to the last.
	current := map[string][]string{}
	for i := range out {
		m := &out[i]
		switch {
		case m.Role == "tool":
			if q := current[m.ToolCallID]; len(q) > 0 {
				if len(q) > 1 {
					current[m.ToolCallID] = q[1:]
				}
				m.ToolCallID = q[0]
			}
		case len(m.ToolCalls) > 0:
			m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
			for _, c := range m.ToolCalls {
				delete(current, c.ID)
			}
			for j := range m.ToolCalls {
				c := &m.ToolCalls[j]
				id := c.ID
				if !validID(id) || seen[id] {
					id = rewriteID(id, used)
					used[id] = true
				}
				seen[c.ID] = true
				current[c.ID] = append(current[c.ID], id)
				c.ID = id
				if d == DialectChat {
					c.Extra = withoutCaller(c.Extra)
				}
			}
		}
	}
	return out
}

// needsPorting reports whether any call's id would be rewritten or its
// Extra changed. Up to 32 calls it allocates nothing; past that it keeps
// a map, so that it stays linear.
func needsPorting(msgs []Message, d Dialect) bool {
	var small [32]string
	ids := small[:0]
	var seen map[string]bool
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if !validID(c.ID) || d == DialectChat && hasCaller(c.Extra) {
				return true
			}
			if seen == nil && len(ids) == len(small) {
				seen = make(map[string]bool, 2*len(small))
				for _, id := range ids {
					seen[id] = true
				}
			}
			if seen != nil {
				if seen[c.ID] {
					return true
				}
				seen[c.ID] = true
				continue
			}
			if slices.Contains(ids, c.ID) {
				return true
			}
			ids = append(ids, c.ID)
		}
	}
	return false
}

// validID reports an id every dialect takes: 1 to 64 of [A-Za-z0-9_-].
func validID(id string) bool {
	if id == "" || len(id) > maxPortableID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return false
		}
	}
	return true
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// rewriteID is a valid id for id that used has not: its valid bytes (at
// most 48), then "_" and a hash of id and an attempt number, so that the
// same conversation is always sent the same way.
func rewriteID(id string, used map[string]bool) string {
	base := make([]byte, 0, maxPortableID)
	for i := 0; i < len(id) && len(base) < 48; i++ {
		if idByte(id[i]) {
			base = append(base, id[i])
		}
	}
	if len(base) == 0 {
		base = append(base, "call"...)
	}
	for n := 0; ; n++ {
		h := fnv.New64a()
		h.Write([]byte(id))
		h.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16)})
		out := string(strconv.AppendUint(append(base, '_'), h.Sum64(), 36))
		if !used[out] {
			return out
		}
	}
}

// hasCaller reports an Extra with Anthropic's "caller" member.
func hasCaller(extra json.RawMessage) bool {
	return bytes.Contains(extra, []byte(`"caller"`))
}

// withoutCaller is extra without its "caller" member, nil when nothing
// else is left; extra itself when it has none or is not an object.
func withoutCaller(extra json.RawMessage) json.RawMessage {
	if !hasCaller(extra) {
		return extra
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(extra, &members) != nil {
		return extra
	}
	delete(members, "caller")
	if len(members) == 0 {
		return nil
	}
	out, err := json.Marshal(members)
	if err != nil {
		return extra
	}
	return out
}
