package transport_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/airlock-go/airlock/transport"
)

// A streaming request: the body is read as it arrives, under the limits, and
// closed to release the connection.
func ExampleClient_Do() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, word := range []string{"Hello", "world"} {
			fmt.Fprintf(w, "data: %s\n\n", word)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	c := transport.New()
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	req.Header.Set("Authorization", "Bearer sk-example")
	resp, err := c.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	stream, err := io.ReadAll(resp.Body)
	fmt.Printf("%d %q %v\n", resp.StatusCode, stream, err)
	// Output:
	// 200 "data: Hello\n\ndata: world\n\ndata: [DONE]\n\n" <nil>
}

// A non-2xx answer never comes back as a stream: it is a *StatusError whose
// Body holds the provider's error JSON.
func ExampleStatusError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"invalid key","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()

	c := transport.New()
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	_, err := c.Do(req)
	var se *transport.StatusError
	if errors.As(err, &se) {
		fmt.Println(se.StatusCode, string(se.Body))
		fmt.Println(err)
	}
	// Output:
	// 401 {"error":{"message":"invalid key","code":"invalid_api_key"}}
	// transport: HTTP 401 Unauthorized: {"error":{"message":"invalid key","code":"invalid_api_key"}}
}

// The observer sees each attempt, the retry and its wait, the status, and the
// bytes handed on — with the key redacted from the URL.
func ExampleWithObserver() {
	var answered atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !answered.Swap(true) {
			w.Header().Set("retry-after-ms", "10")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, "data: ok\n\n")
	}))
	defer srv.Close()

	c := transport.New(transport.WithObserver(func(e transport.Event) {
		// Elapsed varies from run to run; the rest does not.
		fmt.Println(e.Kind, e.Attempt, e.StatusCode, e.Wait, e.Bytes, strings.TrimPrefix(e.URL, srv.URL), e.Err)
	}))
	defer c.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/models?key=AIzaSy-secret", nil)
	resp, err := c.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// Output:
	// attempt 1 0 0s 0 /v1/models?key=REDACTED <nil>
	// retry 1 429 10ms 0 /v1/models?key=REDACTED transport: HTTP 429 Too Many Requests
	// attempt 2 0 0s 0 /v1/models?key=REDACTED <nil>
	// response 2 200 0s 0 /v1/models?key=REDACTED <nil>
	// end 2 200 0s 10 /v1/models?key=REDACTED <nil>
}

// For a reasoning model that may think for many minutes, turn the total
// timeout off and rely on the low-speed rule (and the caller's context) to
// end a connection that went dead. This example needs a live endpoint, so it
// has no output to check.
func ExampleWithTimeout_reasoningModel() {
	c := transport.New(
		transport.WithTimeout(0),                 // no cap on the whole stream
		transport.WithLowSpeed(1, 2*time.Minute), // but two silent minutes end it
		transport.WithMaxStreamBytes(transport.DefaultMaxStreamBytes),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.example.com/v1/chat/completions", strings.NewReader(`{}`))
	resp, err := c.Do(req)
	if err != nil {
		switch {
		case errors.Is(err, transport.ErrStalled):
			fmt.Println("the server went quiet")
		case errors.Is(err, context.DeadlineExceeded):
			fmt.Println("our own 30 minutes ran out")
		}
		return
	}
	defer resp.Body.Close()
}
