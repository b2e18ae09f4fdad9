package sse

import (
	"strconv"
	"strings"
	"time"
)

// This file holds a deliberately simple parser, written straight from the
// standard's prose with none of the package's speed tricks: decode the whole
// input to runes first, drop a BOM, split lines, then interpret them with
// strings. FuzzReader holds the real parsers to it. It has no size limit.

// refDecode is the Encoding Standard's "UTF-8 decoder", step by step.
func refDecode(in []byte) []rune {
	var out []rune
	var cp rune
	seen, need := 0, 0
	lo, hi := byte(0x80), byte(0xBF)
	for i := 0; i < len(in); i++ {
		b := in[i]
		if need == 0 {
			switch {
			case b <= 0x7F:
				out = append(out, rune(b))
			case b >= 0xC2 && b <= 0xDF:
				need, cp = 1, rune(b&0x1F)
			case b >= 0xE0 && b <= 0xEF:
				if b == 0xE0 {
					lo = 0xA0
				}
				if b == 0xED {
					hi = 0x9F
				}
				need, cp = 2, rune(b&0xF)
			case b >= 0xF0 && b <= 0xF4:
				if b == 0xF0 {
					lo = 0x90
				}
				if b == 0xF4 {
					hi = 0x8F
				}
				need, cp = 3, rune(b&0x7)
			default:
				out = append(out, 0xFFFD)
			}
			continue
		}
		if b < lo || b > hi {
			cp, need, seen, lo, hi = 0, 0, 0, 0x80, 0xBF
			out = append(out, 0xFFFD)
			i-- // the byte is processed again
			continue
		}
		lo, hi = 0x80, 0xBF
		cp = cp<<6 | rune(b&0x3F)
		seen++
		if seen == need {
			out = append(out, cp)
			cp, need, seen = 0, 0, 0
		}
	}
	if need != 0 {
		out = append(out, 0xFFFD)
	}
	return out
}

// refResult is what a whole stream produced.
type refResult struct {
	Events   []refEvent
	Unknown  []string // "name=value" for every unknown field, in order
	LastID   string
	Retry    time.Duration
	HasRetry bool
	Done     bool
}

type refEvent struct{ Type, Data, ID string }

func refParse(in []byte, sentinel string) refResult {
	text := refDecode(in)
	if len(text) > 0 && text[0] == 0xFEFF {
		text = text[1:]
	}
	var lines []string
	var cur []rune
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			lines = append(lines, string(cur))
			cur = nil
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
		case '\n':
			lines = append(lines, string(cur))
			cur = nil
		default:
			cur = append(cur, text[i])
		}
	}
	// cur is an unterminated final line: never interpreted.

	var res refResult
	var data, typ, idBuf string
	for _, line := range lines {
		if line == "" {
			res.LastID = idBuf
			if data == "" {
				typ = ""
				continue
			}
			data = strings.TrimSuffix(data, "\n")
			ev := refEvent{Type: typ, Data: data, ID: idBuf}
			if ev.Type == "" {
				ev.Type = "message"
			}
			data, typ = "", ""
			if sentinel != "" && ev.Data == sentinel {
				res.Done = true
				return res
			}
			res.Events = append(res.Events, ev)
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data += value + "\n"
		case "event":
			typ = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				idBuf = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				ms, err := strconv.ParseInt(value, 10, 64)
				if err != nil || ms > maxRetryMillis {
					ms = maxRetryMillis // too large: clamped, as documented
				}
				res.Retry, res.HasRetry = time.Duration(ms)*time.Millisecond, true
			}
		default:
			res.Unknown = append(res.Unknown, name+"="+value)
		}
	}
	return res
}
