package llmstream

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// parseProviderError reads the error shapes OpenAI-compatible servers send,
// in an HTTP error body or inside a stream:
//
//	{"error":{"message":"...","type":"...","param":null,"code":"..."}}  OpenAI, llama.cpp (integer code)
//	{"error":"message"}, or "message" alone as an error member's value    some proxies
//	{"object":"error","message":"...","type":"...","code":400}            vLLM
//	[{"error":{"code":400,"message":"...","status":"INVALID_ARGUMENT"}}]   Gemini
//	{"message":"...","type":"...","code":...}                             an error object alone
//
// ok is false when raw is none of these.
func parseProviderError(raw []byte, status int) (*APIError, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var msg string
		if json.Unmarshal(raw, &msg) != nil {
			return nil, false
		}
		return &APIError{StatusCode: status, Message: msg}, true
	}
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil || len(list) == 0 {
			return nil, false
		}
		raw = bytes.TrimSpace(list[0])
	}
	var outer struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &outer) != nil {
		return nil, false
	}
	inner := bytes.TrimSpace(outer.Error)
	switch {
	case len(inner) > 0 && inner[0] == '"':
		var msg string
		if json.Unmarshal(inner, &msg) != nil {
			return nil, false
		}
		return &APIError{StatusCode: status, Message: msg}, true
	case len(inner) > 0 && inner[0] == '{':
		raw = inner
	}
	var fields struct {
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
		Status  json.RawMessage `json:"status"`
		Code    json.RawMessage `json:"code"`
		Param   json.RawMessage `json:"param"`
	}
	if json.Unmarshal(raw, &fields) != nil || fields.Message == nil {
		return nil, false
	}
	e := &APIError{
		StatusCode: status,
		Message:    jsonText(fields.Message),
		Type:       jsonText(fields.Type),
		Code:       jsonText(fields.Code),
		Param:      jsonText(fields.Param),
	}
	if e.Type == "" {
		e.Type = jsonText(fields.Status) // Gemini names the kind "status"
	}
	return e, true
}

// parseClassified is parseProviderError with the error's Kind set.
func parseClassified(raw []byte, status int) (*APIError, bool) {
	e, ok := parseProviderError(raw, status)
	if ok {
		e.classify()
	}
	return e, ok
}

// jsonText is a string's value, a number's text, or "" for null, absent
// and anything else.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return string(raw)
		}
		return ""
	}
	return jsonString(raw)
}

// jsonString is the JSON string raw holds, "" for any other value.
func jsonString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
