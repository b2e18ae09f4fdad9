package agentcli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/airlock-go/airlock/agentloop"
)

// A paused run is saved as its agentloop.State in JSON, and --resume reads
// it back in a later process.
const (
	// defaultStateFile is where a paused run is saved without --state.
	defaultStateFile = "airlock-run.json"
	// maxStateBytes bounds a state file --resume reads: the conversation is
	// bounded by the context budget, so this is far more than a real one.
	maxStateBytes = 64 << 20
)

// loadState reads a state file saved by a paused run.
func loadState(path string) (*agentloop.State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if len(data) > maxStateBytes {
		return nil, fmt.Errorf("--resume %s: over the limit of %d bytes", path, maxStateBytes)
	}
	var st agentloop.State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("--resume %s: not a saved run: %w", path, err)
	}
	if len(st.Messages) == 0 {
		return nil, fmt.Errorf("--resume %s: not a saved run: no conversation in it", path)
	}
	return &st, nil
}

// saveState writes st to path, readable by its owner only (it holds the
// conversation, file contents included), replacing the file at once so a
// crash never leaves half a state.
func saveState(path string, st *agentloop.State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".airlock-run-*.json")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// resume asks again about the calls the saved run waits for, then goes on
// with it.
func resume(ctx context.Context, loop *agentloop.Loop, ask *asker, st agentloop.State) (agentloop.Result, error) {
	decisions := make(map[string]agentloop.Decision, len(st.Pending))
	for _, c := range st.Pending {
		d, err := ask.approve(ctx, c)
		if err != nil {
			return agentloop.Result{}, err
		}
		decisions[c.ID] = d
	}
	return loop.Resume(ctx, st, decisions)
}

// paused saves a run paused at a question and says how to go on: the
// command line given, less the task (the state holds it), the API key
// (never printed) and an earlier --resume, plus --resume and the file.
func paused(res agentloop.Result, cfg config, command string, args []string, stdout, stderr io.Writer) int {
	path := cfg.State
	if path == "" {
		path = cfg.Resume
	}
	if path == "" {
		path = defaultStateFile
	}
	if err := saveState(path, &res.State); err != nil {
		fmt.Fprintln(stderr, errorLine(fmt.Errorf("the paused run could not be saved: %w", err)))
		return exitFailed
	}
	rest, keyDropped := resumeArgs(args)
	fmt.Fprintf(stdout, "The run is saved in %s (%s waiting for a decision).\n", printable(path), plural(len(res.Pending), "call"))
	fmt.Fprintf(stdout, "to go on: %s\n", printable(shellJoin(append(strings.Fields(command), append(rest, "--resume", path)...))))
	if keyDropped {
		fmt.Fprintln(stdout, "(give the API key again, as --api-key or in AIRLOCK_API_KEY; it is never printed)")
	}
	return exitInterrupted
}

// resumeArgs is args without the flags a resumed run must not repeat:
// -e (the task is in the state), --resume and --state (resumeArgs' caller
// names the file), --api-key (never printed). keyDropped reports the last.
func resumeArgs(args []string) (rest []string, keyDropped bool) {
	drop := map[string]bool{"e": true, "resume": true, "state": true, "api-key": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, hasValue := strings.TrimLeft(a, "-"), false
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		if n, _, ok := strings.Cut(name, "="); ok {
			name, hasValue = n, true
		}
		takesValue := !hasValue && !isSwitch(name)
		if drop[name] {
			keyDropped = keyDropped || name == "api-key"
			if takesValue {
				i++
			}
			continue
		}
		rest = append(rest, a)
		if takesValue && i+1 < len(args) {
			i++
			rest = append(rest, args[i])
		}
	}
	return rest, keyDropped
}

// isSwitch reports whether a flag takes no value: the boolean settings.
func isSwitch(name string) bool {
	for _, s := range allSettings() {
		if s.kind == kindBool && s.flagName() == name {
			return true
		}
	}
	return name == "h" || name == "help"
}

// shellJoin quotes each word that a POSIX shell would change.
func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			quoted[i] = w
			continue
		}
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

// toolNames lists the tools' names.
func toolNames(tools []agentloop.Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
