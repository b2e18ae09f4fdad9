package agentcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/airlock-go/airlock/agentloop"
)

// Bounds of the tools, per call.
const (
	defaultListEntries = 200      // list_files entries when max_entries is not given
	maxListEntries     = 1000     // the most max_entries may ask for
	maxWalkDepth       = 8        // directory levels below the start
	defaultSearchHits  = 50       // search results when max_results is not given
	maxSearchHits      = 200      // the most max_results may ask for
	maxPatternBytes    = 200      // longest search pattern
	maxSearchFiles     = 5000     // files search opens
	maxSearchBytes     = 64 << 20 // bytes search reads
	maxHitLineBytes    = 200      // bytes of a matching line shown
)

// workspace is the directory the tools work in. Every file access goes
// through an os.Root, so no path, ".." or symlink can reach outside it.
// Safe for concurrent use (os.Root is).
type workspace struct {
	root         *os.Root
	maxFileBytes int
	allowWrite   bool
}

func openWorkspace(dir string, maxFileBytes int, allowWrite bool) (*workspace, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &workspace{root: root, maxFileBytes: maxFileBytes, allowWrite: allowWrite}, nil
}

func (w *workspace) Close() error { return w.root.Close() }

// tools returns the tools the agent offers the model: those that only
// read, which run without asking, and write_file when writes are allowed,
// which needs approval.
func (w *workspace) tools() []agentloop.Tool {
	tools := []agentloop.Tool{
		{
			Name:        "list_files",
			Description: "List files and directories under a directory of the workspace, recursively (directories end in /; node_modules and hidden files and directories such as .git and .env are skipped).",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"directory relative to the workspace; default \".\""},"max_entries":{"type":"integer","minimum":1,"maximum":1000,"description":"default 200"}},"additionalProperties":false}`),
			Run:         w.listFiles,
		},
		{
			Name:        "read_file_safe",
			Description: "Read a UTF-8 text file of the workspace. Paths are relative to the workspace; binary files, large files, hidden files and anything outside the workspace are refused.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path relative to the workspace"}},"required":["path"],"additionalProperties":false}`),
			Run:         w.readFile,
		},
		{
			Name:        "search",
			Description: "Find lines containing a literal text in the workspace's text files (hidden ones skipped); returns path:line: text.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string","description":"literal text, case-sensitive"},"path":{"type":"string","description":"directory to search; default \".\""},"max_results":{"type":"integer","minimum":1,"maximum":200,"description":"default 50"}},"required":["pattern"],"additionalProperties":false}`),
			Run:         w.search,
		},
	}
	if w.allowWrite {
		tools = append(tools, agentloop.Tool{
			Name:          "write_file",
			Description:   "Write a text file in the workspace (replacing it); hidden paths are refused. The user approves or refuses each call, with a reason you are told.",
			Parameters:    json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`),
			Run:           w.writeFile,
			NeedsApproval: true,
		})
	}
	return tools
}

// refuse is a failure the model can act on: the loop shows it the text.
func refuse(format string, args ...any) error {
	return agentloop.Recoverable(fmt.Errorf(format, args...))
}

// decodeArgs reads a tool's arguments into v, refusing unknown members.
func decodeArgs(args json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(args))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return refuse("bad arguments: %v", err)
	}
	return nil
}

// localPath checks a path the model gave: relative, inside the workspace
// lexically (os.Root then enforces it for symlinks too). It returns the
// path in slash form, cleaned.
func localPath(p string) (string, error) {
	if p == "" {
		return "", refuse("path is empty")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", refuse("%s: absolute paths are refused; give a path relative to the workspace", p)
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsLocal(clean) {
		return "", refuse("%s: refused: the path leaves the workspace", p)
	}
	return filepath.ToSlash(clean), nil
}

// openRegular opens a regular file of the workspace for reading. It opens
// without blocking (a FIFO would otherwise wait for a writer forever) and
// checks the opened file, not the name, so a swap after a check cannot
// slip a device or pipe in.
func (w *workspace) openRegular(p string) (*os.File, os.FileInfo, error) {
	f, err := w.root.OpenFile(filepath.FromSlash(p), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, refuse("%v", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, refuse("%v", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		if fi.IsDir() {
			return nil, nil, refuse("%s is a directory; use list_files", p)
		}
		return nil, nil, refuse("%s is not a regular file (%v); refused", p, fi.Mode().Type())
	}
	return f, fi, nil
}

// readText reads a regular file of at most maxFileBytes that is UTF-8 text.
// It returns the bytes read even when it refuses them as binary, so that
// search can count them against its budget.
func (w *workspace) readText(p string) ([]byte, error) {
	f, fi, err := w.openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > int64(w.maxFileBytes) {
		return nil, refuse("%s is %d bytes, over the limit of %d; use search to find the part you need", p, fi.Size(), w.maxFileBytes)
	}
	// The file may grow after Stat; never read past the limit.
	data, err := io.ReadAll(io.LimitReader(f, int64(w.maxFileBytes)+1))
	if err != nil {
		return nil, refuse("%s: %v", p, err)
	}
	if len(data) > w.maxFileBytes {
		return nil, refuse("%s is over the limit of %d bytes; use search to find the part you need", p, w.maxFileBytes)
	}
	if isBinary(data) {
		return data, refuse("%s looks binary (NUL bytes or invalid UTF-8); refused", p)
	}
	return data, nil
}

// isBinary reports whether data is not UTF-8 text.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

func (w *workspace) readFile(_ context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := decodeArgs(args, &in); err != nil {
		return "", err
	}
	p, err := localPath(in.Path)
	if err != nil {
		return "", err
	}
	if err := refuseHidden(p); err != nil {
		return "", err
	}
	data, err := w.readText(p)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// skipDir reports whether a walk should not enter the directory name.
func skipDir(name string) bool {
	return name == "node_modules" || isHidden(name)
}

// isHidden reports whether a file or directory name is hidden (".env",
// ".git"). Hidden files are where credentials live (.env, .netrc, a
// remote's token in .git/config) and where tools keep what they run
// (.git/hooks, .envrc, .vscode/tasks.json): the tools neither show their
// contents to the model, which would send them to its provider, nor let it
// write there, which would let it plant code that runs later.
func isHidden(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// refuseHidden refuses a path (slash form, cleaned) that names a hidden
// file or passes through a hidden directory.
func refuseHidden(p string) error {
	for _, part := range strings.Split(p, "/") {
		if isHidden(part) {
			return refuse("%s: hidden files and directories are off limits to the tools", p)
		}
	}
	return nil
}

// walk visits the entries under dir (slash form) in lexical order, at
// most maxWalkDepth levels below dir (the directories at that level are
// visited but not entered), skipping the directories skipDir names and
// hidden files; a hidden dir is refused; visit
// returns false to stop.
func (w *workspace) walk(ctx context.Context, dir string, visit func(p string, d fs.DirEntry) bool) error {
	if err := refuseHidden(dir); err != nil {
		return err
	}
	fi, err := w.root.Stat(filepath.FromSlash(dir))
	if err != nil {
		return refuse("%v", err)
	}
	if !fi.IsDir() {
		return refuse("%s is not a directory", dir)
	}
	// An entry one level below dir has as many slashes as dir plus one,
	// except below "." whose entries have none.
	depth0 := strings.Count(dir, "/")
	if dir == "." {
		depth0 = -1
	}
	err = fs.WalkDir(w.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if err != nil {
			// An unreadable entry is left out, not fatal.
			return nil
		}
		if p == dir {
			return nil
		}
		if d.IsDir() && skipDir(d.Name()) {
			return fs.SkipDir
		}
		if isHidden(d.Name()) {
			return nil
		}
		if !visit(p, d) {
			return fs.SkipAll
		}
		if d.IsDir() && strings.Count(p, "/")-depth0 >= maxWalkDepth {
			return fs.SkipDir
		}
		return nil
	})
	return err
}

func (w *workspace) listFiles(ctx context.Context, args json.RawMessage) (string, error) {
	in := struct {
		Path       string `json:"path"`
		MaxEntries int    `json:"max_entries"`
	}{Path: ".", MaxEntries: defaultListEntries}
	if err := decodeArgs(args, &in); err != nil {
		return "", err
	}
	if in.MaxEntries < 1 || in.MaxEntries > maxListEntries {
		return "", refuse("max_entries %d is outside 1..%d", in.MaxEntries, maxListEntries)
	}
	dir, err := localPath(in.Path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	n, full := 0, false
	err = w.walk(ctx, dir, func(p string, d fs.DirEntry) bool {
		if n == in.MaxEntries {
			full = true
			return false
		}
		n++
		switch {
		case d.IsDir():
			fmt.Fprintf(&b, "%s/\n", p)
		case d.Type()&fs.ModeSymlink != 0:
			fmt.Fprintf(&b, "%s (symlink)\n", p)
		case d.Type().IsRegular():
			size := int64(-1)
			if fi, err := d.Info(); err == nil {
				size = fi.Size()
			}
			fmt.Fprintf(&b, "%s (%d bytes)\n", p, size)
		default:
			fmt.Fprintf(&b, "%s (%v)\n", p, d.Type())
		}
		return true
	})
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "(empty)\n", nil
	}
	if full {
		fmt.Fprintf(&b, "(stopped at %d entries; list a subdirectory to see more)\n", in.MaxEntries)
	}
	return b.String(), nil
}

func (w *workspace) search(ctx context.Context, args json.RawMessage) (string, error) {
	in := struct {
		Pattern    string `json:"pattern"`
		Path       string `json:"path"`
		MaxResults int    `json:"max_results"`
	}{Path: ".", MaxResults: defaultSearchHits}
	if err := decodeArgs(args, &in); err != nil {
		return "", err
	}
	switch {
	case in.Pattern == "":
		return "", refuse("pattern is empty")
	case len(in.Pattern) > maxPatternBytes:
		return "", refuse("pattern is %d bytes, over the limit of %d", len(in.Pattern), maxPatternBytes)
	case strings.ContainsAny(in.Pattern, "\n\r"):
		return "", refuse("pattern spans lines; search matches within one line")
	case in.MaxResults < 1 || in.MaxResults > maxSearchHits:
		return "", refuse("max_results %d is outside 1..%d", in.MaxResults, maxSearchHits)
	}
	dir, err := localPath(in.Path)
	if err != nil {
		return "", err
	}
	pattern := []byte(in.Pattern)
	var b strings.Builder
	hits, files, read := 0, 0, 0
	stop := ""
	err = w.walk(ctx, dir, func(p string, d fs.DirEntry) bool {
		if !d.Type().IsRegular() {
			return true
		}
		if files == maxSearchFiles || read >= maxSearchBytes {
			stop = fmt.Sprintf("(stopped after %d files, %d bytes; search a subdirectory)", files, read)
			return false
		}
		files++
		text, err := w.readText(p)
		// A binary file was read too: it counts against the budget.
		read += len(text)
		if err != nil || !bytes.Contains(text, pattern) {
			// Binary and oversized files are not searched.
			return true
		}
		line := 0
		for l := range bytes.Lines(text) {
			line++
			if !bytes.Contains(l, pattern) {
				continue
			}
			if hits == in.MaxResults {
				stop = fmt.Sprintf("(stopped at %d results)", hits)
				return false
			}
			hits++
			fmt.Fprintf(&b, "%s:%d: %s\n", p, line, clip(string(bytes.TrimSpace(l)), maxHitLineBytes))
		}
		return true
	})
	if err != nil {
		return "", err
	}
	if hits == 0 {
		fmt.Fprintf(&b, "no line contains %q\n", in.Pattern)
	}
	if stop != "" {
		b.WriteString(stop + "\n")
	}
	return b.String(), nil
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…"
}

func (w *workspace) writeFile(_ context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := decodeArgs(args, &in); err != nil {
		return "", err
	}
	if !w.allowWrite {
		return "", refuse("write_file is disabled in this run; the user can enable it with --allow-write")
	}
	p, err := localPath(in.Path)
	if err != nil {
		return "", err
	}
	if err := refuseHidden(p); err != nil {
		return "", err
	}
	if len(in.Content) > w.maxFileBytes {
		return "", refuse("content is %d bytes, over the limit of %d", len(in.Content), w.maxFileBytes)
	}
	// The tools handle text only; read_file_safe would refuse this file.
	if isBinary([]byte(in.Content)) {
		return "", refuse("content has NUL bytes; only text files are written")
	}
	name := filepath.FromSlash(p)
	if fi, err := w.root.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return "", refuse("%s exists and is not a regular file; refused", p)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", refuse("%v", err)
	}
	f, err := w.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return "", refuse("%v", err)
	}
	_, err = io.WriteString(f, in.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", refuse("%s: %v", p, err)
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), p), nil
}
