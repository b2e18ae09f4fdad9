package google_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/airlock-go/airlock/contrib/google"
	"github.com/airlock-go/airlock/llmstream"
)

// Vertex AI with Application Default Credentials. It needs Google
// credentials, so it has no output to check.
func ExampleNewDefault() {
	d, err := google.NewDefault(context.Background(), http.DefaultClient)
	if err != nil {
		fmt.Println(err)
		return
	}
	client := llmstream.NewClient(
		llmstream.WithBaseURL("https://us-central1-aiplatform.googleapis.com"),
		llmstream.WithHTTPClient(d))
	_ = client
}
