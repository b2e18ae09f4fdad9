package mcp_test

import (
	"context"
	"errors"
	"testing"

	mcp "github.com/airlock-go/airlock/contrib/mcp"
)

// TestOptionError: a negative limit is an *OptionError naming the option,
// matching ErrInvalidOption, and no tool is offered; the limits at 0 (the
// default) and 1 are taken.
func TestOptionError(t *testing.T) {
	srv := newServer("one", 0)
	addTool(srv, "t", nil, text("x"))
	cs, _ := connect(t, srv)
	for _, tc := range []struct {
		opt  mcp.Option
		want string
	}{
		{mcp.WithMaxTools(-1), "mcp: invalid option mcp.WithMaxTools(-1): the count must not be negative"},
		{mcp.WithMaxOutputBytes(-1), "mcp: invalid option mcp.WithMaxOutputBytes(-1): the size must not be negative"},
		{mcp.WithMaxTools(0), ""},
		{mcp.WithMaxTools(1), ""},
		{mcp.WithMaxOutputBytes(1), ""},
	} {
		tools, err := mcp.Tools(context.Background(), cs, tc.opt)
		var oe *mcp.OptionError
		switch {
		case tc.want == "" && (err != nil || len(tools) != 1):
			t.Errorf("%v: %d tools, %v; want the one tool", tc.opt, len(tools), err)
		case tc.want != "" && (!errors.Is(err, mcp.ErrInvalidOption) || !errors.As(err, &oe) || err.Error() != tc.want || tools != nil):
			t.Errorf("%v: %d tools, %v; want none and %q", tc.opt, len(tools), err, tc.want)
		}
	}
}
