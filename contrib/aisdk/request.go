package aisdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/llmstream"
)

// maxIDBytes bounds a chat or message id.
const maxIDBytes = 128

// chatRequest is the body DefaultChatTransport posts.
type chatRequest struct {
	ID        string      `json:"id"`
	Messages  []UIMessage `json:"messages"`
	Trigger   string      `json:"trigger"`
	MessageID string      `json:"messageId"`
}

// readRequest decodes and checks a POST body.
func readRequest(w http.ResponseWriter, r *http.Request, max int64) (chatRequest, *refusal) {
	var req chatRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return req, refuse(http.StatusRequestEntityTooLarge, "the body is larger than "+strconv.FormatInt(max, 10)+" bytes")
	}
	if err != nil {
		return req, refuse(http.StatusBadRequest, "the body could not be read")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return req, refuse(http.StatusBadRequest, "the body is not a chat request: "+jsonProblem(err))
	}
	if dec.More() {
		return req, refuse(http.StatusBadRequest, "the body holds more than one JSON value")
	}
	if !validID(req.ID) {
		return req, refuse(http.StatusBadRequest, "the chat id must be 1 to 128 letters, digits, '-' or '_'")
	}
	if req.Trigger != "" && req.Trigger != "submit-message" {
		return req, refuse(http.StatusBadRequest, "the trigger is not served; only submit-message")
	}
	return req, nil
}

// jsonProblem says what is wrong with JSON without quoting it.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "bad JSON at byte " + strconv.FormatInt(se.Offset, 10)
	case errors.As(err, &te):
		return "field " + strconv.Quote(clip(te.Field)) + " has the wrong type"
	}
	return "bad JSON"
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// validID reports whether s is a chat id this package serves: it goes in
// a URL path, so only letters, digits, '-' and '_'.
func validID(s string) bool {
	if s == "" || len(s) > maxIDBytes {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// turn is what a POST asks for, once checked against the chat: a new user
// message, or decisions on the pending calls.
type turn struct {
	ui        []UIMessage // the conversation as the browser now holds it
	user      *llmstream.Message
	decisions map[string]agentloop.Decision
}

// checkPosted checks the posted conversation against the chat as this
// server sent it: it must be that conversation, message for message, and
// then either one new user message (when no call waits) or the answers to
// every call waiting for approval, and nothing else.
func checkPosted(posted []UIMessage, chat Chat) (turn, *refusal) {
	sent := chat.UI
	pending := chat.State != nil && len(chat.State.Pending) > 0
	n := len(sent)
	if len(posted) < n {
		return turn{}, refuse(http.StatusConflict, "the posted conversation is shorter than the one this server sent")
	}
	same := n
	if pending {
		same = n - 1
	}
	for i := range same {
		if !sameMessage(&posted[i], &sent[i]) {
			return turn{}, refuse(http.StatusConflict, "message "+strconv.Itoa(i)+" is not the one this server sent")
		}
	}
	if pending {
		if len(posted) != n {
			return turn{}, refuse(http.StatusConflict, "calls wait for approval; answer them before a new message")
		}
		d, err := decisions(&posted[n-1], &sent[n-1], chat.State.Pending)
		if err != nil {
			return turn{}, err
		}
		return turn{ui: posted, decisions: d}, nil
	}
	if len(posted) != n+1 {
		return turn{}, refuse(http.StatusConflict, "the posted conversation must be the one this server sent and one new user message")
	}
	u, err := userMessage(&posted[n], n)
	if err != nil {
		return turn{}, err
	}
	return turn{ui: posted, user: u}, nil
}

// userMessage checks a new user message: text parts only.
func userMessage(m *UIMessage, i int) (*llmstream.Message, *refusal) {
	if m.Role != "user" {
		return nil, refuse(http.StatusBadRequest, "the new message must be the user's")
	}
	if m.ID == "" || len(m.ID) > maxIDBytes {
		return nil, refuse(http.StatusBadRequest, "the new message needs an id of at most 128 bytes")
	}
	msgs, err := FromUIMessages([]UIMessage{*m})
	if err != nil {
		return nil, refuse(http.StatusBadRequest, "message "+strconv.Itoa(i)+": only text parts are served")
	}
	if msgs[0].Content == "" {
		return nil, refuse(http.StatusBadRequest, "the new message has no text")
	}
	return &msgs[0], nil
}

// decisions reads the answers to the pending calls from the posted last
// message, which must be the one sent but for those answers.
func decisions(posted, sent *UIMessage, pending []agentloop.Call) (map[string]agentloop.Decision, *refusal) {
	if posted.Role != sent.Role || len(posted.Parts) != len(sent.Parts) {
		return nil, refuse(http.StatusConflict, "the last message is not the one this server sent")
	}
	d := map[string]agentloop.Decision{}
	for i := range sent.Parts {
		p, s := &posted.Parts[i], &sent.Parts[i]
		if s.State != stateApprovalRequested || !isPending(pending, s.ToolCallID) {
			if !samePart(p, s) {
				return nil, refuse(http.StatusConflict, "part "+strconv.Itoa(i)+" of the last message is not the one this server sent")
			}
			continue
		}
		// Only the state and the answer may differ.
		q := *p
		q.State, q.Approval = s.State, s.Approval
		if !samePart(&q, s) || p.State != stateApprovalResponded || p.Approval == nil ||
			p.Approval.ID != s.Approval.ID || p.Approval.Approved == nil {
			return nil, refuse(http.StatusConflict, "part "+strconv.Itoa(i)+": an approval answer must name the call's pending approval and say approved or not")
		}
		if *p.Approval.Approved {
			d[s.ToolCallID] = agentloop.Decision{Verdict: agentloop.Allow}
		} else {
			d[s.ToolCallID] = agentloop.Decision{Verdict: agentloop.Deny, Reason: p.Approval.Reason}
		}
	}
	for _, c := range pending {
		if _, ok := d[c.ID]; !ok {
			return nil, refuse(http.StatusConflict, "call "+strconv.Quote(clip(c.ID))+" waits for an answer")
		}
	}
	return d, nil
}

// sameMessage compares what a message shows; ids are the client's.
func sameMessage(a, b *UIMessage) bool {
	if a.Role != b.Role || len(a.Parts) != len(b.Parts) {
		return false
	}
	for i := range a.Parts {
		if !samePart(&a.Parts[i], &b.Parts[i]) {
			return false
		}
	}
	return true
}

func samePart(a, b *UIPart) bool {
	return a.Type == b.Type && a.Text == b.Text && a.State == b.State && a.ToolCallID == b.ToolCallID &&
		a.ErrorText == b.ErrorText && sameJSON(a.Input, b.Input) && sameJSON(a.Output, b.Output) &&
		sameApproval(a.Approval, b.Approval)
}

func sameApproval(a, b *Approval) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.Reason == b.Reason && (a.Approved == nil) == (b.Approved == nil) &&
		(a.Approved == nil || *a.Approved == *b.Approved)
}

// sameJSON compares two JSON values by meaning: key order, spacing and
// the spelling of numbers do not count, since the browser re-encodes what
// it was sent (as JavaScript numbers, so as float64 here, and a number
// past float64's range as null, which is what JSON.stringify writes for
// an infinity).
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	if bytes.Equal(a, b) {
		return true
	}
	x, okx := asJavaScript(a)
	y, oky := asJavaScript(b)
	return okx && oky && reflect.DeepEqual(x, y)
}

// asJavaScript decodes one JSON value with its numbers as JavaScript
// reads and writes them back.
func asJavaScript(raw json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return jsNumbers(v), true
}

func jsNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil // out of range: Infinity, stringified as null
		}
		return f
	case []any:
		for i := range v {
			v[i] = jsNumbers(v[i])
		}
	case map[string]any:
		for k, e := range v {
			v[k] = jsNumbers(e)
		}
	}
	return v
}
