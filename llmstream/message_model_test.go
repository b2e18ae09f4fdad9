package llmstream

import (
	"strings"
	"testing"
)

// TestMessageModel attacks the rule of Message.Model in every dialect: the
// first non-empty name the stream gives stands, whatever comes after it; a
// member that is not a string, or a name over 256 bytes, names nothing; an
// escaped name is decoded; the credentials of WithSecrets are masked. Each
// stream is decoded whole and split every way.
func TestMessageModel(t *testing.T) {
	long := strings.Repeat("m", maxModelBytes)
	chat := func(models ...string) string {
		var b strings.Builder
		for i, m := range models {
			delta := `{"content":"x"}`
			finish := "null"
			if i == len(models)-1 {
				finish = `"stop"`
			}
			b.WriteString(`data: {"id":"c","model":` + m + `,"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n")
		}
		return b.String() + "data: [DONE]\n\n"
	}
	gem := func(models ...string) string {
		var b strings.Builder
		for i, m := range models {
			finish := ""
			if i == len(models)-1 {
				finish = `,"finishReason":"STOP"`
			}
			b.WriteString(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"x"}]}` + finish + `}],"modelVersion":` + m + "}\r\n\r\n")
		}
		return b.String()
	}
	resp := func(created, completed string) string {
		return `data: {"type":"response.created","response":{"id":"r","status":"in_progress","model":` + created + `,"output":[]}}` + "\n\n" +
			`data: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"x"}` + "\n\n" +
			`data: {"type":"response.completed","response":{"id":"r","status":"completed","model":` + completed + `,"output":[]}}` + "\n\n"
	}
	ant := func(model string) string {
		return `data: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":` + model + `,"content":[],"usage":{"input_tokens":1,"output_tokens":1}}}` + "\n\n" +
			`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}` + "\n\n" +
			`data: {"type":"content_block_stop","index":0}` + "\n\n" +
			`data: {"type":"message_delta","delta":{"stop_reason":"end_turn","model":"not-here"},"usage":{"output_tokens":2}}` + "\n\n" +
			`data: {"type":"message_stop"}` + "\n\n"
	}
	tests := []struct {
		name   string
		stream string
		opts   []BridgeOption
		want   string
	}{
		{"chat once", chat(`"gpt-4o-2024-08-06"`), nil, "gpt-4o-2024-08-06"},
		{"chat repeated, renamed later", chat(`"a"`, `"a"`, `"b"`), nil, "a"},
		{"chat empty first (Azure's filter chunk)", chat(`""`, `"gpt-4o"`), nil, "gpt-4o"},
		{"chat null first", chat(`null`, `"gpt-4o"`), nil, "gpt-4o"},
		{"chat not a string", chat(`42`, `{"name":"x"}`, `["y"]`, `true`), nil, ""},
		{"chat escaped", chat(`"g\u0070t-4o \"mini\" \u00e9"`), nil, `gpt-4o "mini" é`},
		{"chat 256 bytes", chat(`"` + long + `"`), nil, long},
		{"chat 257 bytes, then a name", chat(`"`+long+`x"`, `"short"`), nil, "short"},
		{"chat 256 bytes escaped", chat(`"` + strings.Repeat(`\u006d`, maxModelBytes) + `"`), nil, long},
		{"chat 257 bytes escaped", chat(`"` + strings.Repeat(`\u006d`, maxModelBytes+1) + `"`), nil, ""},
		{"chat a credential", chat(`"proxy-sk-secret-123456"`), []BridgeOption{WithSecrets("sk-secret-123456")}, "proxy-REDACTED"},
		{"gemini every chunk", gem(`"gemini-2.5-flash"`, `"gemini-2.5-flash"`, `"gemini-2.5-pro"`), []BridgeOption{gemini}, "gemini-2.5-flash"},
		{"gemini null, then one", gem(`null`, `"gemini-3-pro-preview"`), []BridgeOption{gemini}, "gemini-3-pro-preview"},
		{"responses created and completed differ", resp(`"gpt-5-mini-2025-08-07"`, `"gpt-5"`), []BridgeOption{WithDialect(DialectResponses)}, "gpt-5-mini-2025-08-07"},
		{"responses only completed", resp(`null`, `"gpt-5"`), []BridgeOption{WithDialect(DialectResponses)}, "gpt-5"},
		{"anthropic message.model only", ant(`"claude-sonnet-4-5-20250929"`), []BridgeOption{WithDialect(DialectAnthropic)}, "claude-sonnet-4-5-20250929"},
		{"anthropic none", ant(`null`), []BridgeOption{WithDialect(DialectAnthropic)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decodeEverySplit(t, []byte(tt.stream), tt.opts...)
			if got.Error != "" || got.Model != tt.want {
				t.Errorf("model %q (error %q), want %q", got.Model, got.Error, tt.want)
			}
			if strings.Contains(string(got.Message), "model") {
				t.Errorf("the model reached the message's JSON: %s", got.Message)
			}
		})
	}
}

// TestMessageModelBadEvent: a bad event names no model, since nothing of
// it is applied, and the message the error comes with says the model an
// earlier event gave.
func TestMessageModelBadEvent(t *testing.T) {
	stream := `data: {"model":"first","choices":[{"index":0,"delta":{"content":"x"}}]}` + "\n\n" +
		`data: {"model":"second","choices":[{"index":0,"delta":{"content":"y"}}],}` + "\n\n"
	m, err := ReadMessage(strings.NewReader(stream))
	if err == nil || m.Model != "first" {
		t.Errorf("model %q, error %v; want first and an error", m.Model, err)
	}
	m, err = ReadMessage(strings.NewReader(`data: {"model":"bad","choices":[{"index":0,"delta":{"content":"x"}}],}` + "\n\n"))
	if err == nil || m.Model != "" {
		t.Errorf("model %q, error %v; want none and an error", m.Model, err)
	}
}

// TestMessageModelAllocations: naming the model costs a stream one
// allocation, the name, however many events repeat it (Gemini names it on
// every chunk; chat on every chunk, but in the leading members the decoder
// skips once seen).
func TestMessageModelAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates beside the decoder")
	}
	const events = 200
	streams := map[string]func(model string) (string, BridgeOption){
		"gemini": func(model string) (string, BridgeOption) {
			return strings.Repeat(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"x"}]}}]`+model+"}\r\n\r\n", events) +
				`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"y"}]},"finishReason":"STOP"}]}` + "\r\n\r\n", gemini
		},
		"chat": func(model string) (string, BridgeOption) {
			return strings.Repeat(`data: {"id":"c"`+model+`,"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`+"\n\n", events) +
				"data: [DONE]\n\n", WithDialect(DialectChat)
		},
	}
	for name, stream := range streams {
		t.Run(name, func(t *testing.T) {
			allocs := func(model string) float64 {
				data, d := stream(model)
				return testing.AllocsPerRun(20, func() {
					if _, err := ReadMessage(strings.NewReader(data), d); err != nil {
						t.Fatal(err)
					}
				})
			}
			// Against a member the decoder ignores, of the same length: the
			// chat decoder's copy of the leading members grows alike.
			key := map[string]string{"gemini": "modelVersion", "chat": "model"}[name]
			without, with := allocs(`,"`+strings.Repeat("z", len(key))+`":"gemini-2.5-flash-0520"`), allocs(`,"`+key+`":"gemini-2.5-flash-0520"`)
			if with-without != 1 {
				t.Errorf("%d events naming the model cost %v allocations more than another member, want 1 (%v, %v)", events, with-without, with, without)
			}
		})
	}
}
