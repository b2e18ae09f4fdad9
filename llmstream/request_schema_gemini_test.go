package llmstream

import (
	"encoding/json"
	"testing"
)

// The Gemini request's shape, written from Google's API reference for
// models.generateContent and models.streamGenerateContent
// (ai.google.dev/api/generate-content: GenerateContentRequest,
// GenerationConfig, ThinkingConfig; ai.google.dev/api/caching: Content,
// Part, FunctionCall, FunctionResponse, Tool, FunctionDeclaration,
// ToolConfig, FunctionCallingConfig, ExecutableCode,
// CodeExecutionResult): members this package sends (and the parts
// Gemini's answers carry, which go back whole), every other one left
// out. Gemini's proto JSON answers a member it does not define with 400
// "Unknown name". A Part is a union: one data member, with thought and
// thoughtSignature beside it.

type gemReqShape struct {
	Contents          []gemContentShape `json:"contents"`
	SystemInstruction *gemContentShape  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Description          string          `json:"description"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	ToolConfig *struct {
		FunctionCallingConfig struct {
			Mode                 string   `json:"mode"`
			AllowedFunctionNames []string `json:"allowedFunctionNames"`
		} `json:"functionCallingConfig"`
	} `json:"toolConfig"`
	GenerationConfig *struct {
		StopSequences      []string        `json:"stopSequences"`
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		MaxOutputTokens    *int            `json:"maxOutputTokens"`
		Temperature        *float64        `json:"temperature"`
		TopP               *float64        `json:"topP"`
		TopK               *int            `json:"topK"`
		Seed               *int            `json:"seed"`
		ThinkingConfig     *struct {
			IncludeThoughts *bool   `json:"includeThoughts"`
			ThinkingBudget  *int    `json:"thinkingBudget"`
			ThinkingLevel   *string `json:"thinkingLevel"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

type gemContentShape struct {
	Role  *string        `json:"role"`
	Parts []gemPartShape `json:"parts"`
}

type gemPartShape struct {
	Text         *string `json:"text"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	ExecutableCode *struct {
		Language string `json:"language"` // LANGUAGE_UNSPECIFIED, PYTHON
		Code     string `json:"code"`
	} `json:"executableCode"`
	CodeExecutionResult *struct {
		Outcome string `json:"outcome"` // OUTCOME_UNSPECIFIED, OUTCOME_OK, OUTCOME_FAILED, OUTCOME_DEADLINE_EXCEEDED
		Output  string `json:"output"`
	} `json:"codeExecutionResult"`
	Thought          *bool   `json:"thought"`
	ThoughtSignature *string `json:"thoughtSignature"`
}

// geminiShape is what of body Gemini's schema does not allow: a member
// it does not define, a value of the wrong type or outside its enum, a
// part with other than one data member, a turn without parts.
func geminiShape(body []byte) []string {
	var c shapeCheck
	var v gemReqShape
	if !c.decode(body, &v) {
		return c.errs
	}
	if len(v.Contents) == 0 {
		c.errorf("no contents in %s", body)
	}
	for i, ct := range v.Contents {
		if ct.Role == nil || !oneOf(*ct.Role, "user model") {
			c.errorf("content %d role %v", i, ct.Role)
		}
		geminiParts(&c, ct.Parts)
	}
	if s := v.SystemInstruction; s != nil {
		geminiParts(&c, s.Parts)
		for _, p := range s.Parts {
			if p.Text == nil {
				c.errorf("systemInstruction part other than text: %s", body)
			}
		}
	}
	for _, tool := range v.Tools {
		for _, f := range tool.FunctionDeclarations {
			if !schemaName.MatchString(f.Name) || (f.Parameters != nil && f.ParametersJSONSchema != nil) ||
				(f.ParametersJSONSchema != nil && jsonKind(f.ParametersJSONSchema) != "object") {
				c.errorf("function declaration %+v", f)
			}
		}
	}
	if tc := v.ToolConfig; tc != nil {
		f := tc.FunctionCallingConfig
		if !oneOf(f.Mode, "MODE_UNSPECIFIED AUTO ANY NONE VALIDATED") || (f.AllowedFunctionNames != nil && f.Mode != "ANY" && f.Mode != "VALIDATED") {
			c.errorf("functionCallingConfig %+v", f)
		}
	}
	if g := v.GenerationConfig; g != nil {
		if (g.ResponseJSONSchema != nil || g.ResponseSchema != nil) && g.ResponseMimeType != "application/json" {
			c.errorf("a response schema with responseMimeType %q", g.ResponseMimeType)
		}
		if g.ResponseJSONSchema != nil && g.ResponseSchema != nil {
			c.errorf("responseSchema and responseJsonSchema both")
		}
		if t := g.ThinkingConfig; t != nil {
			if t.ThinkingLevel != nil && !oneOf(*t.ThinkingLevel, "THINKING_LEVEL_UNSPECIFIED MINIMAL LOW MEDIUM HIGH") {
				c.errorf("thinkingLevel %q", *t.ThinkingLevel)
			}
			if t.ThinkingLevel != nil && t.ThinkingBudget != nil {
				c.errorf("thinkingLevel and thinkingBudget both")
			}
			if t.ThinkingBudget != nil && *t.ThinkingBudget == 0 && t.IncludeThoughts != nil && *t.IncludeThoughts {
				c.errorf("thoughts included with thinking off")
			}
		}
	}
	return c.errs
}

// geminiParts checks a turn's parts: at least one, each with one data
// member of its type.
func geminiParts(c *shapeCheck, parts []gemPartShape) {
	if len(parts) == 0 {
		c.errorf("a turn without parts")
	}
	for _, p := range parts {
		n := 0
		for _, set := range []bool{p.Text != nil, p.FunctionCall != nil, p.FunctionResponse != nil, p.InlineData != nil, p.FileData != nil, p.ExecutableCode != nil, p.CodeExecutionResult != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			c.errorf("a part with %d data members (a union holds one): %+v", n, p)
		}
		if f := p.FunctionCall; f != nil && (!schemaName.MatchString(f.Name) || jsonKind(f.Args) != "object") {
			c.errorf("functionCall %s %s", f.Name, f.Args)
		}
		if f := p.FunctionResponse; f != nil && (!schemaName.MatchString(f.Name) || jsonKind(f.Response) != "object") {
			c.errorf("functionResponse %s %s", f.Name, f.Response)
		}
		if e := p.ExecutableCode; e != nil && !oneOf(e.Language, "LANGUAGE_UNSPECIFIED PYTHON") {
			c.errorf("executableCode language %q", e.Language)
		}
		if r := p.CodeExecutionResult; r != nil && !oneOf(r.Outcome, "OUTCOME_UNSPECIFIED OUTCOME_OK OUTCOME_FAILED OUTCOME_DEADLINE_EXCEEDED") {
			c.errorf("codeExecutionResult outcome %q", r.Outcome)
		}
	}
}

// TestGeminiRequestShape: every request the Gemini encoder writes, for a
// Gemini 3 model (which signs calls) and a 2.5 one, has only the members
// generateContent defines, each of its type and enum; and the check fails
// a body that breaks the schema in each way it looks for.
func TestGeminiRequestShape(t *testing.T) {
	var bodies [][]byte
	for _, model := range []string{"gemini-3-pro-preview", "gemini-2.5-flash"} {
		for _, r := range shapeRequests(t, model) {
			bodies = append(bodies, sentBody(t, DialectGemini, r))
		}
	}
	valid := []byte(`{"contents":[{"role":"user","parts":[{"text":"u"}]},` +
		`{"role":"model","parts":[{"text":"t","thought":true,"thoughtSignature":"c2ln"},{"functionCall":{"id":"c1","name":"f","args":{}},"thoughtSignature":"c2ln"},` +
		`{"executableCode":{"language":"PYTHON","code":"1"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK","output":"1"}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"result":"r"}}}]}],` +
		`"systemInstruction":{"parts":[{"text":"s"}]},` +
		`"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":{"type":"object"}}]}],` +
		`"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}},` +
		`"generationConfig":{"maxOutputTokens":5,"stopSequences":["END"],"thinkingConfig":{"thinkingLevel":"LOW","includeThoughts":true},` +
		`"responseMimeType":"application/json","responseJsonSchema":{"type":"object"}}}`)
	checkShapes(t, bodies, geminiShape, valid, []shapeBreak{
		{"unknown top-level member", `"toolConfig":`, `"model":"gemini-3-pro","toolConfig":`},
		{"unknown content member", `"role":"user",`, `"role":"user","name":"n",`},
		{"unknown part member", `{"text":"u"}`, `{"text":"u","type":"text"}`},
		{"unknown functionCall member", `"id":"c1","name":"f","args"`, `"id":"c1","name":"f","arguments":"{}","args"`},
		{"unknown functionResponse member", `"response":{"result":"r"}`, `"response":{"result":"r"},"isError":true`},
		{"unknown declaration member", `"description":"d",`, `"description":"d","strict":true,`},
		{"unknown generationConfig member", `"maxOutputTokens":5,`, `"maxOutputTokens":5,"reasoningEffort":"low",`},
		{"unknown thinkingConfig member", `"includeThoughts":true`, `"includeThoughts":true,"effort":"low"`},
		{"snake-case-only member", `"toolConfig":`, `"tool_choice":"auto","toolConfig":`},
		{"role outside its enum", `"role":"model"`, `"role":"assistant"`},
		{"mode outside its enum", `"mode":"ANY"`, `"mode":"REQUIRED"`},
		{"thinkingLevel outside its enum", `"thinkingLevel":"LOW"`, `"thinkingLevel":"low"`},
		{"thinkingLevel none", `"thinkingLevel":"LOW"`, `"thinkingLevel":"NONE"`},
		{"thinkingLevel with thinkingBudget", `"thinkingLevel":"LOW"`, `"thinkingLevel":"LOW","thinkingBudget":5`},
		{"thoughts with thinking off", `"thinkingLevel":"LOW"`, `"thinkingBudget":0`},
		{"outcome outside its enum", `"OUTCOME_OK"`, `"OK"`},
		{"a part with two data members", `{"text":"u"}`, `{"text":"u","inlineData":{"mimeType":"a/b","data":"AA=="}}`},
		{"a part with none", `{"text":"u"}`, `{"thought":true}`},
		{"a turn without parts", `"parts":[{"text":"u"}]`, `"parts":[]`},
		{"args as a string", `"args":{}`, `"args":"{}"`},
		{"response as a string", `"response":{"result":"r"}`, `"response":"r"`},
		{"maxOutputTokens as a string", `"maxOutputTokens":5`, `"maxOutputTokens":"5"`},
		{"a schema without the JSON mime type", `"application/json"`, `"text/plain"`},
		{"allowed names with AUTO", `"mode":"ANY"`, `"mode":"AUTO"`},
	})
}
