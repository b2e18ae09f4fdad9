package toolcall_test

import (
	"fmt"

	"github.com/airlock-go/airlock/toolcall"
)

// Each value of a streamed structured answer is reported the moment it
// completes, with its path, however the text is cut.
func ExampleMembers() {
	m := toolcall.NewMembers(func(e toolcall.Member) error {
		fmt.Printf("%s = %s\n", e.Path, e.Value)
		return nil
	})
	for _, delta := range []string{`{"goal":"sh`, `ip","steps":[{"title":"wr`, `ite"},{"title":"test"}`} {
		if _, err := m.Write([]byte(delta)); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("so far: %s\n", m.Snapshot())
	m.Write([]byte(`]}`))
	if err := m.End(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// $.goal = "ship"
	// $.steps[0].title = "write"
	// $.steps[0] = {"title":"write"}
	// $.steps[1].title = "test"
	// $.steps[1] = {"title":"test"}
	// so far: {"goal":"ship","steps":[{"title":"write"},{"title":"test"}]}
	// $.steps = [{"title":"write"},{"title":"test"}]
	// $ = {"goal":"ship","steps":[{"title":"write"},{"title":"test"}]}
}
