package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// render returns a call result as the text the model sees (the package doc
// says how), building at most max bytes. Structured content is left out
// beside text: servers send it as text too (server-filesystem sends the
// file as text and {"content": file} as structured).
func render(res *sdk.CallToolResult, max int) string {
	out := boundedText{max: max}
	text := false
	for _, c := range res.Content {
		_, isText := c.(*sdk.TextContent)
		text = text || isText
		out.block(describe(c))
	}
	if res.StructuredContent != nil && !text {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			out.block(fmt.Sprintf("[structured content that cannot be encoded as JSON: %v]", err))
		} else {
			out.block(string(b))
		}
	}
	return out.String()
}

// describe returns a content block's text: text as sent, an embedded text
// resource's header line and text, and one bracketed line for everything
// else, so no block is dropped silently.
func describe(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", cmp.Or(c.MIMEType, "unknown type"), len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", cmp.Or(c.MIMEType, "unknown type"), len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s%s%s]", c.URI, label(c.Name), label(c.MIMEType))
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource: empty]"
		}
		if r.Blob != nil || r.Text == "" {
			return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, cmp.Or(r.MIMEType, "unknown type"), len(r.Blob))
		}
		return fmt.Sprintf("[resource: %s%s]\n%s", r.URI, label(r.MIMEType), r.Text)
	case nil:
		return "[empty content block]"
	default:
		return fmt.Sprintf("[content of type %T, not shown]", c)
	}
}

func label(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

// boundedText joins blocks with newlines and keeps at most max bytes of
// them (negative: all), cut on a UTF-8 boundary; String appends a line
// giving how many bytes were cut.
type boundedText struct {
	b     strings.Builder
	max   int
	count int // blocks written
	cut   int // bytes left out
}

func (t *boundedText) block(s string) {
	if t.count > 0 {
		t.write("\n")
	}
	t.count++
	t.write(s)
}

func (t *boundedText) write(s string) {
	room := len(s)
	if t.max >= 0 {
		room = min(room, t.max-t.b.Len())
	}
	if room < len(s) {
		for room > 0 && !utf8.RuneStart(s[room]) {
			room--
		}
		t.cut += len(s) - room
	}
	t.b.WriteString(s[:room])
}

func (t *boundedText) String() string {
	if t.cut == 0 {
		return t.b.String()
	}
	return fmt.Sprintf("%s\n[mcp: result cut at %d bytes; %d bytes not shown]", t.b.String(), t.max, t.cut)
}
