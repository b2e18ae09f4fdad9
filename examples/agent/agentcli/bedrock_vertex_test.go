package agentcli

import (
	"errors"
	"io"
	"testing"

	"github.com/airlock-go/airlock/llmstream"
)

// TestBedrockAndVertexConfig: --dialect bedrock takes AWS_BEARER_TOKEN_BEDROCK
// and its default model, a Bedrock host picks the dialect, and --vertex
// takes PROJECT/LOCATION and switches on real mode.
func TestBedrockAndVertexConfig(t *testing.T) {
	c, err := parseConfig([]string{"--dialect", "bedrock"}, environment{"AWS_BEARER_TOKEN_BEDROCK": "bedrock-key-1234"}, io.Discard, nil)
	if err != nil || c.Dialect != llmstream.DialectBedrock || c.APIKey != "bedrock-key-1234" || c.Model != defaultBedrockModel || c.Real {
		t.Errorf("bedrock: %+v, %v", c, err)
	}
	c, err = parseConfig([]string{"--base-url", "https://bedrock-runtime.eu-west-1.amazonaws.com"}, environment{}, io.Discard, nil)
	if err != nil || c.Dialect != llmstream.DialectBedrock || !c.Real {
		t.Errorf("bedrock host: %+v, %v", c, err)
	}
	c, err = parseConfig([]string{"--dialect", "gemini", "--vertex", "my-proj/global"}, environment{}, io.Discard, nil)
	if err != nil || c.Vertex != "my-proj/global" || !c.Real {
		t.Errorf("vertex: %+v, %v", c, err)
	}
	for _, bad := range []string{"my-proj", "/us-central1", "my-proj/"} {
		if _, err := parseConfig([]string{"--vertex", bad}, environment{}, io.Discard, nil); !errors.Is(err, errUsage) {
			t.Errorf("--vertex %q: %v, want a usage error", bad, err)
		}
	}
	if got := defaultBaseURL(llmstream.DialectBedrock, "ap-south-1"); got != "https://bedrock-runtime.ap-south-1.amazonaws.com" {
		t.Errorf("Bedrock base URL %q", got)
	}
	if got := vertexBaseURL("us-east5"); got != "https://us-east5-aiplatform.googleapis.com/v1" {
		t.Errorf("Vertex base URL %q", got)
	}
}
