package llmstream

import (
	"slices"
	"strings"

	"github.com/airlock-go/airlock/internal/jsonscan"
)

// antMembers are the members of a thinking or raw block's start, with the
// text its deltas appended to string members, rebuilt into one JSON object
// at the block's stop. A block may hold many members (a hostile start or
// delta), so they cost no allocation each: keys share one string, values
// slice one copy of the start, and appended text lives in one buffer as
// pieces linked per member.
type antMembers struct {
	coming int  // members of the delta being read not yet extended (see expect)
	near   int  // the member found last: the next find tries it and the one after
	dups   bool // two members share a key (then find asks the map)
	list   []antMember
	byKey  map[string]int // position in list by key, once there are more than maxListedMembers
	text   []byte         // every text the deltas appended, in arrival order
	segs   []antSeg       // the pieces of text, each linked to its member's next
}

// maxListedMembers is how many members of a block are looked up in a list
// before a map takes over, so that a delta of many distinct members stays
// linear.
const maxListedMembers = 8

// antMember is one member: its key, its start value and its text pieces.
type antMember struct {
	key         string
	raw         []byte // the start's value as JSON
	first, last int    // its pieces in antMembers.segs, -1 for none
}

// antSeg is a piece of a member's appended text: text[start:end].
type antSeg struct{ start, end, next int }

// emptyJSONString is the start value of a member a delta brought.
var emptyJSONString = []byte(`""`)

// startMembers reads the members of the block object a.block into
// blk.members. Two walks: the first counts them and their keys' bytes,
// the second slices keys (see memberKeys) and values.
func (a *anthropicDecoder) startMembers(blk *antBlock) {
	n, size := 0, 0
	a.fields(a.block, func(key []byte, v jsonscan.Span) {
		if v.OK() {
			n, size = n+1, size+len(key)
		}
	})
	keys := memberKeys{size: size}
	src := slices.Clone(a.doc.Data[a.block.Start:a.block.End])
	m := &antMembers{list: make([]antMember, 0, n)}
	blk.members = m
	a.fields(a.block, func(key []byte, v jsonscan.Span) {
		if !v.OK() {
			return
		}
		s, e := v.Start-a.block.Start, v.End-a.block.Start
		m.list = append(m.list, antMember{key: keys.add(key), raw: src[s:e:e], first: -1, last: -1})
	})
	m.index()
}

// deltaMembers extends blk's members with the string members of the
// delta a.delta, its type aside. Two walks, as for a start; the walk is a
// decoder's field and its steps methods, not closures, so that a delta
// allocates nothing but the keys of new members.
func (a *anthropicDecoder) deltaMembers(blk *antBlock) {
	s := a.delta
	if !s.OK() || a.doc.Data[s.Start] != '{' {
		return
	}
	w := &a.walk
	*w = deltaWalk{a: a, m: blk.members}
	jsonscan.WalkObject(&a.doc, w, s.Start, 0, (*deltaWalk).count)
	w.m.expect(w.n)
	w.keys.size = w.size
	jsonscan.WalkObject(&a.doc, w, s.Start, 0, (*deltaWalk).extend)
	*w = deltaWalk{} // holds no block or keys past the delta
}

// deltaWalk is deltaMembers' walk over a delta's members.
type deltaWalk struct {
	a       *anthropicDecoder
	m       *antMembers
	n, size int // the string members and their keys' bytes
	keys    memberKeys
}

// member is the value of the member at i when the walk takes it: a
// string, under a key other than "type".
func (w *deltaWalk) member(key []byte, i, depth int) (v jsonscan.Span, take bool, end int, err error) {
	v, end, err = w.a.doc.ValueSpan(i, depth)
	return v, string(key) != "type" && w.a.doc.IsString(v), end, err
}

func (w *deltaWalk) count(key []byte, i, depth int) (int, error) {
	_, take, end, err := w.member(key, i, depth)
	if take {
		w.n, w.size = w.n+1, w.size+len(key)
	}
	return end, err
}

func (w *deltaWalk) extend(key []byte, i, depth int) (int, error) {
	v, take, end, err := w.member(key, i, depth)
	if take {
		w.m.extend(&w.a.doc, key, &w.keys, v)
	}
	return end, err
}

// memberKeys holds the keys of new members of a start or a delta in one
// string, grown at the first to size, all the keys' bytes: a member then
// costs no allocation for its key, and a delta whose members all exist
// none at all.
type memberKeys struct {
	strings.Builder
	size int
}

// add returns key as a string, appended to k (a copy of its own when k is
// nil); what a Builder wrote never changes, so the string stays valid.
func (k *memberKeys) add(key []byte) string {
	if k == nil {
		return string(key)
	}
	if k.Cap() == 0 {
		k.Grow(k.size)
	}
	k.Write(key)
	s := k.String()
	return s[len(s)-len(key):]
}

// extend appends the string value v of a delta's member key to the member
// of that name, a new empty-string member if the start had none (its key
// from keys); an empty v changes no member.
func (m *antMembers) extend(doc *jsonscan.Doc, key []byte, keys *memberKeys, v jsonscan.Span) {
	i := m.find(key)
	if i < 0 {
		i = len(m.list)
		if i == cap(m.list) {
			// Room for the rest of the delta at once, should its members
			// all be new; a delta of members the start had needs none.
			m.list = slices.Grow(m.list, max(m.coming, 1))
		}
		m.list = append(m.list, antMember{key: keys.add(key), raw: emptyJSONString, first: -1, last: -1})
		if m.byKey != nil {
			m.byKey[m.list[i].key] = i
		} else {
			m.index()
		}
	}
	m.coming--
	start := len(m.text)
	m.text = doc.Str(m.text, v)
	if len(m.text) == start {
		return // no text: the member stays as the start wrote it (a number stays one)
	}
	mem := &m.list[i]
	if mem.last >= 0 && m.segs[mem.last].end == start {
		m.segs[mem.last].end = len(m.text) // the common case: deltas of one member in a row
		return
	}
	m.segs = append(roomForOne(m.segs), antSeg{start: start, end: len(m.text), next: -1})
	if mem.last >= 0 {
		m.segs[mem.last].next = len(m.segs) - 1
	} else {
		mem.first = len(m.segs) - 1
	}
	mem.last = len(m.segs) - 1
}

// expect says that a delta of n string members is read next. Each may
// start a piece of text, so a delta of many has room for them made once:
// doubling as they come allocated up to twice the room the pieces take.
func (m *antMembers) expect(n int) {
	m.coming = n
	if n > 1 {
		m.segs = slices.Grow(m.segs, n)
	}
}

// index looks members up in a map once there are more than a few,
// whether the start or the deltas brought them, so that a delta extending
// many members stays linear. The map has room for what the delta being
// read may still add.
func (m *antMembers) index() {
	if m.byKey != nil || len(m.list) <= maxListedMembers {
		return
	}
	m.byKey = make(map[string]int, len(m.list)+max(m.coming, 0))
	for i := range m.list {
		if _, dup := m.byKey[m.list[i].key]; dup {
			m.dups = true
		} else {
			m.byKey[m.list[i].key] = i
		}
	}
}

// find is the position of the first member named key, -1 for none. Deltas
// mostly extend the member the last one did, or the next in order; while
// no key repeats, the member there is the first of its name, and the map,
// whose lookups miss the cache once it is large, is not asked.
func (m *antMembers) find(key []byte) int {
	if m.byKey != nil {
		if !m.dups {
			for i := m.near; i < min(m.near+2, len(m.list)); i++ {
				if m.list[i].key == string(key) {
					m.near = i
					return i
				}
			}
		}
		if i, ok := m.byKey[string(key)]; ok {
			m.near = i
			return i
		}
		return -1
	}
	for i := range m.list {
		if m.list[i].key == string(key) {
			return i
		}
	}
	return -1
}

// set gives every member named key the value raw, dropping text appended
// to it; a new member if there is none.
func (m *antMembers) set(key string, raw []byte) {
	found := false
	for i := range m.list {
		if m.list[i].key == key {
			m.list[i].raw, m.list[i].first, m.list[i].last = raw, -1, -1
			found = true
		}
	}
	if !found {
		m.list = append(m.list, antMember{key: key, raw: raw, first: -1, last: -1})
		if m.byKey != nil {
			m.byKey[key] = len(m.list) - 1
		}
	}
}

// rebuild writes the members as one JSON object, each string member with
// the text its deltas added.
func (m *antMembers) rebuild() []byte {
	out := append(make([]byte, 0, 2+len(m.text)+16*len(m.list)), '{')
	var str []byte
	for i := range m.list {
		mem := &m.list[i]
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonscan.AppendQuoted(out, []byte(mem.key))
		out = append(out, ':')
		if mem.first < 0 {
			out = append(out, mem.raw...)
			continue
		}
		str = str[:0]
		if len(mem.raw) > 0 && mem.raw[0] == '"' {
			str, _, _ = jsonscan.AppendString(str, mem.raw, 0)
		}
		for s := mem.first; s >= 0; s = m.segs[s].next {
			str = append(str, m.text[m.segs[s].start:m.segs[s].end]...)
		}
		out = jsonscan.AppendQuoted(out, str)
	}
	return append(out, '}')
}
