package llmstreamtest

import (
	"bytes"
	"encoding/json"

	"github.com/airlock-go/airlock/llmstream"
)

// requestOutput reads the structured-output request from body where the
// dialect's provider documents it (see llmstream.OutputSchema): nil when
// the request asked for none, or put it elsewhere. A schema is compacted,
// so tests compare it byte for byte with what they sent.
func requestOutput(d llmstream.Dialect, body []byte) *llmstream.OutputSchema {
	var o llmstream.OutputSchema
	var raw json.RawMessage
	switch d {
	case llmstream.DialectChat:
		var w struct {
			ResponseFormat *struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Schema json.RawMessage `json:"schema"`
					Strict bool            `json:"strict"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if json.Unmarshal(body, &w) != nil || w.ResponseFormat == nil || w.ResponseFormat.Type != "json_schema" {
			return nil
		}
		s := w.ResponseFormat.JSONSchema
		o.Name, raw, o.Strict = s.Name, s.Schema, s.Strict
	case llmstream.DialectResponses:
		var w struct {
			Text *struct {
				Format struct {
					Type   string          `json:"type"`
					Name   string          `json:"name"`
					Schema json.RawMessage `json:"schema"`
					Strict bool            `json:"strict"`
				} `json:"format"`
			} `json:"text"`
		}
		if json.Unmarshal(body, &w) != nil || w.Text == nil || w.Text.Format.Type != "json_schema" {
			return nil
		}
		f := w.Text.Format
		o.Name, raw, o.Strict = f.Name, f.Schema, f.Strict
	case llmstream.DialectAnthropic:
		var w struct {
			OutputConfig *struct {
				Format struct {
					Type   string          `json:"type"`
					Schema json.RawMessage `json:"schema"`
				} `json:"format"`
			} `json:"output_config"`
		}
		if json.Unmarshal(body, &w) != nil || w.OutputConfig == nil || w.OutputConfig.Format.Type != "json_schema" {
			return nil
		}
		raw = w.OutputConfig.Format.Schema
	case llmstream.DialectGemini:
		var w struct {
			GenerationConfig *struct {
				ResponseMimeType   string          `json:"responseMimeType"`
				ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		if json.Unmarshal(body, &w) != nil || w.GenerationConfig == nil || w.GenerationConfig.ResponseMimeType != "application/json" {
			return nil
		}
		raw = w.GenerationConfig.ResponseJSONSchema
	case llmstream.DialectBedrock:
		var w struct {
			OutputConfig *struct {
				TextFormat struct {
					Type      string `json:"type"`
					Structure struct {
						JSONSchema struct {
							Name   string `json:"name"`
							Schema string `json:"schema"`
						} `json:"jsonSchema"`
					} `json:"structure"`
				} `json:"textFormat"`
			} `json:"outputConfig"`
		}
		if json.Unmarshal(body, &w) != nil || w.OutputConfig == nil || w.OutputConfig.TextFormat.Type != "json_schema" {
			return nil
		}
		s := w.OutputConfig.TextFormat.Structure.JSONSchema
		o.Name, raw = s.Name, json.RawMessage(s.Schema)
	default:
		return nil
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return nil
	}
	o.Schema = compact.Bytes()
	return &o
}
