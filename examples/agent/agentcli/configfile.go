package agentcli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// The config file (--config) holds one `key = value` per line, keys as the
// flags' names with _ for -. Blank lines and lines starting with # are
// skipped. Spaces around the key and the value are dropped. A value may be
// quoted:
//
//   - in double quotes, it is read as a Go string literal: \" and \\ stand
//     for " and \, and \n, \t, \xNN, \uNNNN and the other Go escapes work;
//   - in single quotes, it is taken as written, backslashes and all (for a
//     Windows path); it cannot hold a single quote;
//   - after the closing quote, only a # comment may follow.
//
// Unquoted, the value is the rest of the line as it stands, # and quotes
// included (a URL may hold a #).

// readConfigFile reads the config file at path. An unknown key (with the
// nearest known one), a line without '=', a bad quoted value, or a key
// given twice is refused with its line number; a file over maxConfigBytes is
// refused whole.
func readConfigFile(path string, byKey map[string]setting) (*layer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &settingError{Source: "--config", Reason: err.Error()}
	}
	defer f.Close()
	// One byte past the limit tells a file over it from one at it: a cut
	// file would apply its head and silently drop (or cut) the rest.
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, &settingError{Source: path, Reason: err.Error()}
	}
	if len(data) > maxConfigBytes {
		return nil, &settingError{Source: path, Reason: fmt.Sprintf("over the limit of %d bytes", maxConfigBytes)}
	}
	keys := make([]string, 0, len(byKey))
	for _, s := range allSettings() {
		keys = append(keys, s.key)
	}
	l := &layer{}
	seen := map[string]int{}
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", path, n)
		key, raw, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &settingError{Source: where, Reason: "not a `key = value` line: " + shownLine(line)}
		}
		key = strings.TrimSpace(key)
		s, known := byKey[key]
		if !known {
			// Only the key is shown: a misspelt api_key's value is a secret.
			reason := fmt.Sprintf("unknown key %q", key)
			if near := nearest(key, keys); near != "" {
				reason += fmt.Sprintf("; did you mean %q?", near)
			}
			return nil, &settingError{Source: where, Reason: reason}
		}
		value, problem := configValue(raw)
		if problem != "" {
			return nil, &settingError{Key: key, Source: where, Reason: s.show(strings.TrimSpace(raw)) + ": " + problem}
		}
		if first, dup := seen[key]; dup {
			return nil, &settingError{Key: key, Source: where, Reason: fmt.Sprintf("given twice (first on line %d)", first)}
		}
		seen[key] = n
		l.add(key, value, where)
	}
	return l, nil
}

// configValue reads the value part of a config line (see the rules above)
// and returns it, or why it cannot.
func configValue(raw string) (value, problem string) {
	raw = strings.TrimSpace(raw)
	if raw == "" || (raw[0] != '"' && raw[0] != '\'') {
		return raw, ""
	}
	q := raw[0]
	end := -1
	for i := 1; i < len(raw) && end < 0; i++ {
		switch raw[i] {
		case '\\':
			if q == '"' {
				i++ // an escaped character cannot close the value
			}
		case q:
			end = i
		}
	}
	if end < 0 {
		return "", fmt.Sprintf("no closing %c", q)
	}
	if rest := strings.TrimSpace(raw[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
		return "", fmt.Sprintf("text after the closing %c (only a # comment may follow)", q)
	}
	if q == '\'' {
		return raw[1:end], ""
	}
	v, err := strconv.Unquote(raw[:end+1])
	if err != nil {
		return "", `a bad escape: in double quotes \ starts a Go escape (\" \\ \n \t \xNN \uNNNN); use single quotes to keep backslashes as written`
	}
	return v, ""
}

// shownLine is what an error shows of a line that is no `key = value`: the
// line may be a secret pasted alone, so only the first word of a line of
// several ("model: …"), else the line redacted.
func shownLine(line string) string {
	if i := strings.IndexAny(line, " \t:"); i > 0 {
		return strconv.Quote(strings.TrimSpace(line[:i+1]) + " …")
	}
	return redactSecret(line)
}
