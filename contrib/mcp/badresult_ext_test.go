package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/airlock-go/airlock/agentloop"
	"github.com/airlock-go/airlock/contrib/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawServer is an MCP server written by hand on the wire (newline-framed
// JSON-RPC, as over stdio), so that it can answer what no SDK server
// would: results holds each tool's raw result; one prefixed "LAST:" is
// the server's last answer before it closes its end.
func rawServer(t *testing.T, results map[string]string) *sdk.ClientSession {
	t.Helper()
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer fromServer.Close()
		lines := bufio.NewScanner(toServer)
		for lines.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(lines.Bytes(), &req) != nil || req.ID == nil {
				continue // a notification
			}
			var result string
			switch req.Method {
			case "initialize":
				result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0"}}`
			case "tools/list":
				var tools []string
				for name := range results {
					tools = append(tools, fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name))
				}
				result = `{"tools":[` + strings.Join(tools, ",") + `]}`
			case "tools/call":
				result = results[req.Params.Name]
			default:
				result = `{}`
			}
			last := strings.HasPrefix(result, "LAST:") // answer, then die
			result = strings.TrimPrefix(result, "LAST:")
			if _, err := fmt.Fprintf(fromServer, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result); err != nil || last {
				return
			}
		}
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "v0"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		toServer.Close()
		wg.Wait()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		toServer.Close()
		clientIn.Close()
		wg.Wait()
	})
	return cs
}

// TestUnknownContentFailsOneCall: a result with a content type the SDK
// does not know fails that call alone, recoverably, saying what came; the
// next call, of the same tool or another, reaches the server.
func TestUnknownContentFailsOneCall(t *testing.T) {
	cs := rawServer(t, map[string]string{
		"weird": `{"content":[{"type":"hologram","data":"AAAA"}]}`,
		"plain": `{"content":[{"type":"text","text":"fine"}]}`,
	})
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]agentloop.Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for i := range 2 {
		_, err := byName["weird"].Run(context.Background(), json.RawMessage(`{}`))
		var rec *agentloop.RecoverableError
		var ce *mcp.CallError
		if !errors.Is(err, mcp.ErrBadResult) || errors.Is(err, mcp.ErrConnection) || !errors.As(err, &rec) || !errors.As(err, &ce) || ce.Tool != "weird" {
			t.Fatalf("call %d: %v; want a recoverable CallError wrapping ErrBadResult, not ErrConnection", i, err)
		}
		if !strings.Contains(rec.Error(), `"hologram"`) {
			t.Errorf("call %d: the model sees %q, which does not say what came", i, rec.Error())
		}
		if out, err := byName["plain"].Run(context.Background(), json.RawMessage(`{}`)); err != nil || out != "fine" {
			t.Fatalf("the call after a bad result: %q, %v; want the server reached", out, err)
		}
	}
}

// TestUnknownContentInALoop: in a run the bad result is answered to the
// model and the run goes on to the next turn's call.
func TestUnknownContentInALoop(t *testing.T) {
	cs := rawServer(t, map[string]string{
		"weird": `{"content":[{"type":"hologram"}]}`,
		"plain": `{"content":[{"type":"text","text":"fine"}]}`,
	})
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	loop := agentloop.Loop{Model: scriptedModel([]call{{"weird", `{}`}}, []call{{"plain", `{}`}}), Tools: tools}
	res, err := loop.Run(context.Background(), userSays("go"))
	if err != nil {
		t.Fatal(err)
	}
	out := toolOutputs(res)
	if len(out) != 2 || !strings.Contains(out[0], "hologram") || out[1] != "fine" {
		t.Errorf("tool answers %q; want the bad result explained, then fine", out)
	}
}

// TestBadResultThenDeath: a server that dies right after a bad result is
// dead (the ping finds it so), not a recoverable bad result.
func TestBadResultThenDeath(t *testing.T) {
	cs := rawServer(t, map[string]string{"weird": `LAST:{"content":[{"type":"hologram"}]}`})
	tools, err := mcp.Tools(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools[0].Run(context.Background(), json.RawMessage(`{}`))
	var rec *agentloop.RecoverableError
	if !errors.Is(err, mcp.ErrConnection) || errors.Is(err, mcp.ErrBadResult) || errors.As(err, &rec) {
		t.Errorf("%v; want ErrConnection, not recoverable", err)
	}
}

// TestBadResultNoSecret: what the server sent is quoted in the error, but
// never a secret it carries.
func TestBadResultNoSecret(t *testing.T) {
	const secret = "tok-7f3a9c0d2e-secret"
	cs := rawServer(t, map[string]string{"weird": `{"content":[{"type":"` + secret + `"}]}`})
	tools, err := mcp.Tools(context.Background(), cs, mcp.WithSecrets(secret))
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools[0].Run(context.Background(), json.RawMessage(`{}`))
	var rec *agentloop.RecoverableError
	if !errors.Is(err, mcp.ErrBadResult) || !errors.As(err, &rec) || strings.Contains(err.Error(), secret) || strings.Contains(rec.Error(), secret) || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("%v; want a recoverable ErrBadResult with the secret masked", err)
	}
}
