package llmstream

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/airlock-go/airlock/internal/jsonscan"
)

// This file checks the hand-written chunk decoder against a reference built
// on encoding/json: the reference reads the event as a token stream (so
// duplicate keys and member order are seen as the decoder sees them) and
// applies the same rules. Both produce a record of what the event says.

// record is what one event contributes, in arrival order.
type record struct {
	Pieces []piece
	Finish string
	Usage  any
	Groq   any
	Error  any
	// Details are the reasoning.encrypted entries of reasoning_details.
	Details []any
}

type piece struct {
	Kind    string
	Text    string
	Index   int
	NoIndex bool
	ID      *string
	Type    *string
	Name    *string
	Args    *string
	ArgsVal any // arguments that are JSON text, compared by meaning
	Extra   any
}

// decoderRecord runs the hand-written decoder on data; ok is false when it
// rejected the event.
// A previous event prev, if any, is decoded first by the same bridge, so
// the leading-members shortcut (walkTop) is exercised too.
// With validUTF8 the decoder is told the data is valid UTF-8, as it is
// when it comes through an sse.Reader.
func decoderRecord(prev, data []byte, validUTF8 bool) (record, bool) {
	b := NewBridge()
	c := b.decoder().(*chatDecoder)
	c.ev.ValidUTF8 = validUTF8
	if len(prev) > 0 {
		c.decodeChunk(prev)
	}
	if _, err := c.decodeChunk(data); err != nil {
		return record{}, false
	}
	e := &c.ev
	var r record
	for _, mk := range e.marks {
		switch mk.kind {
		case inCall:
			c := e.calls[mk.span.Start]
			p := piece{Kind: "call", Index: c.index, NoIndex: c.noIndex}
			str := func(s jsonscan.Span) *string {
				if !s.OK() {
					return nil
				}
				v := string(e.arena[s.Start:s.End])
				return &v
			}
			p.ID, p.Type, p.Name, p.Args = str(c.id), str(c.typ), str(c.name), str(c.args)
			if p.NoIndex {
				p.Index = 0
			}
			p.normalizeArgs()
			if c.extra.OK() {
				p.Extra = meaning(e.extras[c.extra.Start:c.extra.End])
			}
			r.Pieces = append(r.Pieces, p)
		default:
			name := map[bufKind]string{inContent: "content", inReasoning: "reasoning", inRefusal: "refusal"}[mk.kind]
			r.Pieces = append(r.Pieces, piece{Kind: name, Text: string((*sink{b}.buffer(mk.kind))[mk.span.Start:mk.span.End])})
		}
	}
	for _, d := range e.details {
		r.Details = append(r.Details, meaning(data[d.Start:d.End]))
	}
	if e.finish.OK() {
		r.Finish = jsonscan.DecodedString(data, e.finish)
	}
	if e.usage.OK() {
		r.Usage = meaning(data[e.usage.Start:e.usage.End])
	}
	if e.groqUsage.OK() {
		r.Groq = meaning(data[e.groqUsage.Start:e.groqUsage.End])
	}
	if e.apiErr.OK() {
		r.Error = meaning(data[e.apiErr.Start:e.apiErr.End])
	}
	return r, true
}

// meaning decodes JSON text for comparison by value.
func meaning(raw []byte) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "invalid: " + err.Error()
	}
	return v
}

// node is a JSON value as encoding/json's token stream describes it.
type node struct {
	kind    byte // '{' '[' '"' '0' 'n' 'b'
	str     string
	members []member
	elems   []node
}

type member struct {
	key string
	val node
}

func readNode(d *json.Decoder) (node, error) {
	tok, err := d.Token()
	if err != nil {
		return node{}, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			n := node{kind: '{'}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return n, err
				}
				val, err := readNode(d)
				if err != nil {
					return n, err
				}
				n.members = append(n.members, member{kt.(string), val})
			}
			_, err := d.Token()
			return n, err
		}
		n := node{kind: '['}
		for d.More() {
			val, err := readNode(d)
			if err != nil {
				return n, err
			}
			n.elems = append(n.elems, val)
		}
		_, err := d.Token()
		return n, err
	case string:
		return node{kind: '"', str: v}, nil
	case json.Number:
		return node{kind: '0', str: string(v)}, nil
	case nil:
		return node{kind: 'n'}, nil
	case bool:
		return node{kind: 'b', str: map[bool]string{true: "true", false: "false"}[v]}, nil
	}
	return node{}, io.ErrUnexpectedEOF
}

// encode writes n back as JSON text, members in order, duplicates kept.
func (n node) encode() []byte {
	switch n.kind {
	case '{':
		b := []byte{'{'}
		for i, m := range n.members {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(m.key)
			b = append(append(b, k...), ':')
			b = append(b, m.val.encode()...)
		}
		return append(b, '}')
	case '[':
		b := []byte{'['}
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, e.encode()...)
		}
		return append(b, ']')
	case '"':
		s, _ := json.Marshal(n.str)
		return s
	case 'n':
		return []byte("null")
	}
	return []byte(n.str)
}

// referenceRecord applies the bridge's rules to the token tree.
func referenceRecord(data []byte) (record, bool) {
	t := bytes.TrimLeft(data, " \t\r\n")
	if !json.Valid(data) || len(t) == 0 || t[0] != '{' {
		return record{}, false
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	root, err := readNode(d)
	if err != nil {
		return record{}, false
	}
	var r record
	for _, m := range root.members {
		switch m.key {
		case "choices":
			for pos, ch := range m.val.elems {
				if ch.kind == '{' {
					r.choice(ch, pos)
				}
			}
		case "error":
			r.Error = valueOrNil(m.val)
		case "usage":
			r.Usage = valueOrNil(m.val)
		case "x_groq":
			for _, g := range m.val.members {
				if g.key == "usage" {
					r.Groq = valueOrNil(g.val)
				}
			}
		}
	}
	return r, true
}

func valueOrNil(n node) any {
	if n.kind == 'n' {
		return nil
	}
	return meaning(n.encode())
}

func (r *record) choice(ch node, pos int) {
	index := pos
	for _, m := range ch.members {
		if m.key == "index" && m.val.kind == '0' {
			if n, ok := jsonscan.ParseIndex([]byte(m.val.str)); ok {
				index = n
			}
		}
	}
	if index != 0 {
		return
	}
	reasoningSeen := false
	for _, m := range ch.members {
		switch {
		case m.key == "delta" && m.val.kind == '{':
			for _, dm := range m.val.members {
				r.delta(dm, &reasoningSeen)
			}
		case m.key == "finish_reason" && m.val.kind == '"' && m.val.str != "":
			r.Finish = m.val.str
		}
	}
}

func (r *record) text(kind, s string) {
	if s != "" {
		r.Pieces = append(r.Pieces, piece{Kind: kind, Text: s})
	}
}

func (r *record) delta(m member, reasoningSeen *bool) {
	v := m.val
	switch m.key {
	case "content":
		if v.kind == '"' {
			r.text("content", v.str)
		}
		for _, part := range v.elems {
			r.contentPart(part)
		}
	case "reasoning_content", "reasoning":
		if v.kind == '"' && !*reasoningSeen {
			r.text("reasoning", v.str)
			*reasoningSeen = v.str != ""
		}
	case "reasoning_details":
		seen, read := *reasoningSeen, false
		for _, e := range v.elems {
			if e.kind != '{' {
				continue
			}
			var typ, text, summary *node // the last of each; nil for null
			for i := range e.members {
				em := &e.members[i]
				var val *node
				if em.val.kind != 'n' {
					val = &em.val
				}
				switch em.key {
				case "type":
					typ = val
				case "text":
					text = val
				case "summary":
					summary = val
				}
			}
			if typ == nil || typ.kind != '"' {
				continue
			}
			switch {
			case typ.str == "reasoning.encrypted":
				r.Details = append(r.Details, meaning(e.encode()))
			case seen:
			case typ.str == "reasoning.text" && text != nil && text.kind == '"':
				r.text("reasoning", text.str)
				read = read || text.str != ""
			case typ.str == "reasoning.summary" && summary != nil && summary.kind == '"':
				r.text("reasoning", summary.str)
				read = read || summary.str != ""
			}
		}
		if read {
			*reasoningSeen = true
		}
	case "refusal":
		if v.kind == '"' {
			r.text("refusal", v.str)
		}
	case "tool_calls":
		for _, c := range v.elems {
			if c.kind == '{' {
				r.call(c)
			}
		}
	}
}

// contentPart applies one element of a content array: untyped and "text"
// parts are answer text, "thinking" and "reasoning" parts reasoning (from
// their "thinking" member, else "text"), a string or an array of parts with
// "text"; other types are skipped. The last of a repeated member wins;
// null is absent.
func (r *record) contentPart(part node) {
	var typ, text, thinking *node
	for i := range part.members {
		pm := &part.members[i]
		var v *node // nil for null, as for absent
		if pm.val.kind != 'n' {
			v = &pm.val
		}
		switch pm.key {
		case "type":
			typ = v
		case "text":
			text = v
		case "thinking":
			thinking = v
		}
	}
	kind := "content"
	if typ != nil && typ.kind == '"' {
		switch typ.str {
		case "text":
		case "thinking", "reasoning":
			kind = "reasoning"
		default:
			return
		}
	}
	if kind == "reasoning" && thinking != nil {
		text = thinking
	}
	switch {
	case text == nil:
	case text.kind == '"':
		r.text(kind, text.str)
	case text.kind == '[':
		for _, e := range text.elems {
			for _, em := range e.members {
				if em.key == "text" && em.val.kind == '"' {
					r.text(kind, em.val.str)
				}
			}
		}
	}
}

func (r *record) call(c node) {
	p := piece{Kind: "call", NoIndex: true}
	var extra node
	extra.kind = '{'
	strp := func(s string) *string { return &s }
	for _, m := range c.members {
		v := m.val
		switch {
		case m.key == "index":
			if n, ok := jsonscan.ParseIndex([]byte(v.str)); ok && v.kind == '0' {
				p.Index, p.NoIndex = n, false
			} else {
				p.Index, p.NoIndex = 0, true
			}
		case m.key == "id" && v.kind == '"':
			p.ID = strp(v.str)
		case m.key == "type" && v.kind == '"':
			p.Type = strp(v.str)
		case m.key == "function" && v.kind == '{':
			for _, f := range v.members {
				switch {
				case f.key == "name" && f.val.kind == '"':
					p.Name = strp(f.val.str)
				case f.key == "arguments" && f.val.kind == '"':
					p.Args, p.ArgsVal = strp(f.val.str), nil
				case f.key == "arguments" && f.val.kind != 'n':
					p.Args, p.ArgsVal = nil, meaning(f.val.encode())
				}
			}
		case m.key == "id" || m.key == "type" || m.key == "function" || v.kind == 'n':
		default:
			extra.members = append(extra.members, m)
		}
	}
	if len(extra.members) > 0 {
		p.Extra = meaning(extra.encode())
	}
	p.normalizeArgs()
	blank := func(s *string) bool { return s == nil || *s == "" }
	if p.Extra == nil && p.ArgsVal == nil && blank(p.ID) && blank(p.Name) && blank(p.Args) {
		return // carries nothing: the decoder drops it
	}
	r.Pieces = append(r.Pieces, p)
}

// normalizeArgs compares arguments that are JSON text by meaning: sent as
// a string or as a JSON value, they end as the same argument text.
func (p *piece) normalizeArgs() {
	if p.Args != nil && json.Valid([]byte(*p.Args)) {
		p.Args, p.ArgsVal = nil, meaning([]byte(*p.Args))
	}
}

func FuzzChunk(f *testing.F) {
	files, _ := filepath.Glob("testdata/providers/*.sse")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		var prev []byte
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "data: "); ok && v != "[DONE]" {
				f.Add(prev, []byte(v))
				prev = []byte(v)
			}
		}
	}
	for _, s := range []string{
		`{"choices":[{"delta":{"content":"a","content":"b"},"index":0}]}`,
		`{"choices":[{"delta":{"\u0063ontent":"esc key"},"index":0}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1.0,"id":"x","function":{"arguments":[1,{"a":null}]}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":-1,"extra":{"k":"\ud800"},"x\"y":1}]}}]}`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\xc3\"}}]}",
		`{"choices":[{"delta":{"content":"\ud83d\ude00\ud83d\u0041"}}]}`,
		` {"usage":{"prompt_tokens":1e2}} `,
		`{"choices":[{"index":0,"delta":{"reasoning":"","reasoning_content":"r"}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","text":"a"},{"type":"reasoning.encrypted","data":"x"},1,{"type":null,"text":"b"},{"type":"reasoning.summary","summary":"c","type":"reasoning.text"}],"reasoning":"a"}}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning":"r","reasoning_details":[{"type":"reasoning.text","text":"r"},{"text":null,"type":"reasoning.encrypted"}]}},{"index":1,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"y"}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":[{"text":"a","type":"thinking"},{"type":"thinking","thinking":null,"text":"b"},{"type":"x","text":"c"},{"type":"reasoning","thinking":"d"},{"type":null,"text":"e"},"f",{"type":"thinking","thinking":[1,{"text":"g","text":"h"}]}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"index":1}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null,"x":1}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
		`{"choices":[{"index":0,"delta":{}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"}}]}`,
	} {
		f.Add([]byte(nil), []byte(s))
	}
	prev := []byte(`{"id":"a","model":"m","choices":[]}`)
	for _, s := range []string{
		`{"id":"a","model":"m","choices":[{"index":0,"delta":{"content":"x"}}]}`,
		`{"id":"a","model":"m","usage":{"total_tokens":3}}`,
		`{"id":"a","model":"m",}`,
		`{"id":"a","model":"m","`,
		`{"id":"a","model":"m","id":"b","error":{"message":"m"}}`,
	} {
		f.Add(prev, []byte(s))
	}
	f.Fuzz(func(t *testing.T, prev, data []byte) {
		got, gotOK := decoderRecord(prev, data, false)
		if utf8.Valid(prev) && utf8.Valid(data) {
			trusted, trustedOK := decoderRecord(prev, data, true)
			if diff := cmp.Diff(got, trusted); diff != "" || trustedOK != gotOK {
				t.Fatalf("trusting valid UTF-8 changes the result for %q (-checked +trusted):\n%s", data, diff)
			}
		}
		want, wantOK := referenceRecord(data)
		if gotOK != wantOK {
			t.Fatalf("decoder accepts=%v, encoding/json accepts=%v for %q (after %q)", gotOK, wantOK, data, prev)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decoder differs from the encoding/json reference for %q after %q (-want +got):\n%s", data, prev, diff)
		}
	})
}
