package llmstream

import "encoding/json"

// placed is one block of a message's continuity state with what it stands
// for: a run of the message's text, one of its calls, or a provider piece
// kept whole.
type placed struct {
	block   *Block
	text    bool
	content string    // the text, for a text block
	call    *ToolCall // the call, for a tool-call block
	raw     json.RawMessage
}

// placeBlocks maps blocks onto m, for a dialect writing back its own
// state: text blocks take Content in order by their Bytes, tool-call
// blocks their entry of ToolCalls, raw blocks stay as they are, and calls
// no block names go at the end. ok is false when the blocks no longer
// match the message (the text was edited, a call was removed or named
// twice); the writer then falls back to its neutral order.
func placeBlocks(m *Message, blocks []Block) ([]placed, bool) {
	out := make([]placed, 0, len(blocks)+len(m.ToolCalls))
	used := make([]bool, len(m.ToolCalls))
	off := 0
	for i := range blocks {
		blk := &blocks[i]
		switch blk.Type {
		case BlockText:
			if blk.Bytes < 0 || off+blk.Bytes > len(m.Content) {
				return nil, false
			}
			out = append(out, placed{block: blk, text: true, content: m.Content[off : off+blk.Bytes]})
			off += blk.Bytes
		case BlockToolCall:
			if blk.Call < 0 || blk.Call >= len(m.ToolCalls) || used[blk.Call] {
				return nil, false
			}
			used[blk.Call] = true
			out = append(out, placed{block: blk, call: &m.ToolCalls[blk.Call]})
		default:
			out = append(out, placed{block: blk, raw: blk.Raw})
		}
	}
	if off != len(m.Content) {
		return nil, false
	}
	for i := range m.ToolCalls {
		if !used[i] {
			out = append(out, placed{call: &m.ToolCalls[i]})
		}
	}
	return out, true
}
