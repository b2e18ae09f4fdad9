module github.com/airlock-go/airlock/examples/web

go 1.25.0

replace (
	github.com/airlock-go/airlock => ../..
	github.com/airlock-go/airlock/contrib/aisdk => ../../contrib/aisdk
)

require (
	github.com/airlock-go/airlock v0.0.0-00010101000000-000000000000
	github.com/airlock-go/airlock/contrib/aisdk v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
)
