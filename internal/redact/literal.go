package redact

import "strings"

// literal.go: a '%' or '\' that is the text's own, right before a secret.
// The decoded reading goes left to right, so in "100%abcd%2Dlive..." it
// takes "%ab" for an escape and never sees "abcd-live...", the secret that
// follows a literal '%'. Any escape it took may instead be its escape
// character alone followed by plain text: the rest of the escape read as
// is, after which the two readings agree again (the escape's other bytes
// begin no escape). A "\\" is the one exception: read that way, its second
// '\' may begin an escape of its own, which is decoded too.

// span is a stretch of the text, from and to byte offsets.
type span struct{ from, to int }

// escapeUnits calls fn for each escape of d's reading: it spans
// text[p:q], and its decoded bytes end at d.text[next:].
func escapeUnits(d *decoded, fn func(p, q, next int)) {
	for j := 0; j < len(d.text); {
		p, q := int(d.from[j]), int(d.to[j])
		next := j + 1
		for next < len(d.text) && int(d.from[next]) == p {
			next++
		}
		if q-p >= 2 {
			fn(p, q, next)
		}
		j = next
	}
}

// boundary is the index of d.text whose bytes begin at text offset at,
// searching from j; -1 when no decoded byte begins there.
func (d *decoded) boundary(j, at int) int {
	for ; j < len(d.text) && int(d.from[j]) < at; j++ {
	}
	if j < len(d.text) && int(d.from[j]) == at {
		return j
	}
	if j == len(d.text) && (j == 0 || int(d.to[j-1]) == at) {
		return j
	}
	return -1
}

// afterLiteral returns the spans of text where a raw secret of s begins
// inside an escape that d took, read with its escape character literal.
// dec is d.text as a string.
func (s *Set) afterLiteral(text, dec string, d *decoded) []span {
	var spans []span
	escapeUnits(d, func(p, q, next int) {
		lit := text[p+1 : q]
		for _, v := range s.raws {
			for o := range len(lit) {
				alt, start := lit[o:], p+1+o
				switch {
				case strings.HasPrefix(alt, v):
					spans = append(spans, span{start, start + len(v)})
				case strings.HasPrefix(v, alt) && strings.HasPrefix(dec[next:], v[len(alt):]):
					spans = append(spans, span{start, int(d.to[next+len(v)-len(alt)-1])})
				}
			}
			if lit == `\` { // "\\": its second '\' may begin an escape
				r, m := jsonEscape(text[p+1:])
				j := d.boundary(next, p+1+m)
				if m == 0 || j < 0 {
					continue
				}
				alt := string(r)
				if strings.HasPrefix(v, alt) && strings.HasPrefix(dec[j:], v[len(alt):]) {
					end := p + 1 + m
					if len(v) > len(alt) {
						end = int(d.to[j+len(v)-len(alt)-1])
					}
					spans = append(spans, span{p + 1, end})
				}
			}
		}
	})
	return spans
}

// headCutLiteral is where a raw secret of s that runs past the end of
// text begins inside an escape d took (or inside the escape the end cut
// short), read with its escape character literal; len(text) when none.
// end is how many decoded bytes come before the cut-short escape.
func (s *Set) headCutLiteral(text string, d *decoded, end int) int {
	cut := len(text)
	dec := string(d.text[:end])
	if d.partial >= 0 {
		lit := text[d.partial+1:]
		for _, v := range s.raws {
			for o := range len(lit) {
				if strings.HasPrefix(v, lit[o:]) {
					cut = min(cut, d.partial+1+o)
					break
				}
			}
		}
	}
	longest := 0
	for _, v := range s.raws {
		longest = max(longest, len(v))
	}
	escapeUnits(d, func(p, q, next int) {
		if next > end || end-next > longest+maxEscape {
			return // past the cut-short escape, or too far from the end
		}
		lit := text[p+1 : q]
		for _, v := range s.raws {
			for o := range len(lit) {
				alt := lit[o:]
				if !strings.HasPrefix(v, alt) || !strings.HasPrefix(v[len(alt):], dec[next:]) {
					continue
				}
				if rest := v[len(alt)+len(dec)-next:]; d.partial >= 0 && !mayBegin(text[d.partial:], rest) {
					continue
				}
				cut = min(cut, p+1+o)
				break
			}
			if lit == `\` && s.escapeBeginsAt(text, d, p+1, next, end, v) {
				cut = min(cut, p+1)
			}
		}
	})
	return cut
}

// escapeBeginsAt reports that the escape that would begin at text[at:]
// (the second '\' of a "\\" the reading took, whose decoded bytes end at
// d.text[next:]) begins v, which runs past the end of text: the escape is
// cut short there, or decodes to v's start with the rest of text after it.
func (s *Set) escapeBeginsAt(text string, d *decoded, at, next, end int, v string) bool {
	if partialJSONEscape(text[at:]) {
		return mayBegin(text[at:], v)
	}
	r, m := jsonEscape(text[at:])
	j := d.boundary(next, at+m)
	if m == 0 || j < 0 || j > end {
		return false
	}
	alt := string(r)
	dec := string(d.text[j:end])
	if !strings.HasPrefix(v, alt) || !strings.HasPrefix(v[len(alt):], dec) {
		return false
	}
	rest := v[len(alt)+len(dec):]
	return d.partial < 0 && rest != "" || d.partial >= 0 && mayBegin(text[d.partial:], rest)
}
