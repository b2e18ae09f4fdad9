package transport

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"
)

func TestOptionValues(t *testing.T) {
	tests := []struct {
		name    string
		opt     Option
		wantErr string // the OptionError text, "" when accepted
		check   func(config) bool
	}{
		{"timeout one below zero", WithTimeout(-time.Nanosecond), "transport: invalid option transport.WithTimeout(-1ns): negative duration", nil},
		{"timeout zero is off", WithTimeout(0), "", func(c config) bool { return c.timeout == 0 }},
		{"timeout one above zero", WithTimeout(time.Nanosecond), "", func(c config) bool { return c.timeout == time.Nanosecond }},
		{"connect one below zero", WithConnectTimeout(-time.Nanosecond), "transport: invalid option transport.WithConnectTimeout(-1ns): negative duration", nil},
		{"connect zero", WithConnectTimeout(0), "", func(c config) bool { return c.connectTimeout == 0 }},
		{"connect one above zero", WithConnectTimeout(time.Nanosecond), "", func(c config) bool { return c.connectTimeout == time.Nanosecond }},
		{"low speed rate one below zero", WithLowSpeed(-1, time.Second), "transport: invalid option transport.WithLowSpeed(-1, 1s): negative rate or window", nil},
		{"low speed window one below zero", WithLowSpeed(1, -time.Nanosecond), "transport: invalid option transport.WithLowSpeed(1, -1ns): negative rate or window", nil},
		{"low speed zero rate is off", WithLowSpeed(0, time.Second), "", func(c config) bool { return c.lowSpeedBytes == 0 }},
		{"low speed zero window is off", WithLowSpeed(1, 0), "", func(c config) bool { return c.lowSpeedWindow == 0 }},
		{"low speed one above zero", WithLowSpeed(1, time.Nanosecond), "", func(c config) bool { return c.lowSpeedBytes == 1 && c.lowSpeedWindow == 1 }},
		{"cap one below zero", WithMaxStreamBytes(-1), "transport: invalid option transport.WithMaxStreamBytes(-1): negative size", nil},
		{"cap zero is off", WithMaxStreamBytes(0), "", func(c config) bool { return c.maxStream == 0 }},
		{"cap one above zero", WithMaxStreamBytes(1), "", func(c config) bool { return c.maxStream == 1 }},
		{"retry count one below zero", WithRetry(-1, 0, 0), "transport: invalid option transport.WithRetry(-1, 0s, 0s): negative count or duration", nil},
		{"retry zero is off", WithRetry(0, 0, 0), "", func(c config) bool { return c.maxRetries == 0 }},
		{"retry one", WithRetry(1, time.Second, time.Second), "", func(c config) bool {
			return c.maxRetries == 1 && c.initialBackoff == time.Second && c.maxBackoff == time.Second
		}},
		{"retry initial one above max", WithRetry(1, time.Second+1, time.Second), "transport: invalid option transport.WithRetry(1, 1.000000001s, 1s): initial backoff above the maximum", nil},
		{"retry negative backoff", WithRetry(1, -1, 0), "transport: invalid option transport.WithRetry(1, -1ns, 0s): negative count or duration", nil},
		{"retry-after one below zero", WithMaxRetryAfter(-1), "transport: invalid option transport.WithMaxRetryAfter(-1ns): negative duration", nil},
		{"retry-after zero", WithMaxRetryAfter(0), "", func(c config) bool { return c.maxRetryAfter == 0 }},
		{"insecure", WithInsecureSkipVerify(), "", func(c config) bool { return c.insecure }},
		{"tls nil", WithTLSConfig(nil), "", func(c config) bool { return c.tls == nil }},
		{"proxy nil", WithProxy(nil), "", func(c config) bool { return c.proxy == nil }},
		{"observer", WithObserver(func(Event) {}), "", func(c config) bool { return c.observer != nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.opt)
			if tt.wantErr != "" {
				var oe *OptionError
				if c.err == nil || c.err.Error() != tt.wantErr || !errors.Is(c.err, ErrInvalidOption) || !errors.As(c.err, &oe) {
					t.Fatalf("err = %v, want %q", c.err, tt.wantErr)
				}
				if c.tr != nil {
					t.Error("a Client with a bad option built a transport")
				}
				return
			}
			if c.err != nil {
				t.Fatalf("err = %v", c.err)
			}
			if !tt.check(c.cfg) {
				t.Errorf("%v did not reach the configuration: %+v", tt.opt, c.cfg)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c := New()
	if c.err != nil {
		t.Fatal(c.err)
	}
	cfg := c.cfg
	if cfg.timeout != 60*time.Second || cfg.connectTimeout != 10*time.Second ||
		cfg.lowSpeedBytes != 1 || cfg.lowSpeedWindow != 30*time.Second ||
		cfg.maxStream != 100<<20 || cfg.maxRetries != 2 || cfg.insecure || cfg.tls != nil {
		t.Errorf("defaults = %+v", cfg)
	}
	tr := c.tr
	if !tr.ForceAttemptHTTP2 || tr.TLSHandshakeTimeout != 10*time.Second || tr.TLSClientConfig != nil ||
		tr.DialTLSContext == nil || tr.DialContext == nil || tr.Proxy == nil {
		t.Errorf("transport = %+v", tr)
	}
	// Proxies come from the environment, as with http.DefaultTransport.
	if reflect.ValueOf(cfg.proxy).Pointer() != reflect.ValueOf(http.ProxyFromEnvironment).Pointer() {
		t.Error("the proxy function is not http.ProxyFromEnvironment")
	}
	if New(WithProxy(nil)).tr.Proxy != nil {
		t.Error("WithProxy(nil) left a proxy function")
	}
}

func TestLaterOptionWins(t *testing.T) {
	c := New(WithTimeout(time.Second), nil, WithTimeout(2*time.Second))
	if c.err != nil || c.cfg.timeout != 2*time.Second {
		t.Errorf("timeout = %v, err %v", c.cfg.timeout, c.err)
	}
}

func TestOptionErrorsJoined(t *testing.T) {
	c := New(WithTimeout(-1), WithMaxStreamBytes(-1))
	const want = "transport: invalid option transport.WithTimeout(-1ns): negative duration\n" +
		"transport: invalid option transport.WithMaxStreamBytes(-1): negative size"
	if c.err == nil || c.err.Error() != want || !errors.Is(c.err, ErrInvalidOption) {
		t.Errorf("err = %v", c.err)
	}
}

func TestInsecureSetsTLS(t *testing.T) {
	roots := &tls.Config{ServerName: "example.test"}
	tests := []struct {
		name       string
		opts       []Option
		wantName   string
		wantVerify bool
	}{
		{"alone", []Option{WithInsecureSkipVerify()}, "", false},
		{"after a config", []Option{WithTLSConfig(roots), WithInsecureSkipVerify()}, "example.test", false},
		{"config alone", []Option{WithTLSConfig(roots)}, "example.test", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.opts...)
			cfg := c.tr.TLSClientConfig
			if cfg == nil || cfg.ServerName != tt.wantName || cfg.InsecureSkipVerify == tt.wantVerify {
				t.Errorf("TLSClientConfig = %+v", cfg)
			}
			if cfg == roots {
				t.Error("the caller's config is used, not a clone")
			}
		})
	}
	if roots.InsecureSkipVerify {
		t.Error("WithInsecureSkipVerify changed the caller's config")
	}
}

func TestOptionString(t *testing.T) {
	fixed, _ := url.Parse("http://127.0.0.1:1")
	tests := []struct {
		opt  Option
		want string
	}{
		{WithTimeout(90 * time.Second), "transport.WithTimeout(1m30s)"},
		{WithConnectTimeout(5 * time.Second), "transport.WithConnectTimeout(5s)"},
		{WithLowSpeed(10, time.Minute), "transport.WithLowSpeed(10, 1m0s)"},
		{WithMaxStreamBytes(1 << 20), "transport.WithMaxStreamBytes(1048576)"},
		{WithTLSConfig(nil), "transport.WithTLSConfig(nil)"},
		{WithTLSConfig(&tls.Config{}), "transport.WithTLSConfig(&tls.Config{...})"},
		{WithInsecureSkipVerify(), "transport.WithInsecureSkipVerify()"},
		{WithRetry(3, time.Second, 10*time.Second), "transport.WithRetry(3, 1s, 10s)"},
		{WithMaxRetryAfter(time.Minute), "transport.WithMaxRetryAfter(1m0s)"},
		{WithObserver(nil), "transport.WithObserver(nil)"},
		{WithObserver(func(Event) {}), "transport.WithObserver(func)"},
		{WithProxy(nil), "transport.WithProxy(nil)"},
		{WithProxy(http.ProxyURL(fixed)), "transport.WithProxy(func)"},
		{WithLogger(nil), "transport.WithLogger(nil)"},
		{WithLogger(slog.Default()), "transport.WithLogger(*slog.Logger)"},
	}
	for _, tt := range tests {
		if got := tt.opt.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
