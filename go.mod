module github.com/airlock-go/airlock

go 1.25

require (
	github.com/goccy/go-json v0.12.0
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
)
