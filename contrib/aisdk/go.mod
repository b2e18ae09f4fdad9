module github.com/airlock-go/airlock/contrib/aisdk

go 1.25.0

replace github.com/airlock-go/airlock => ../..

require (
	github.com/airlock-go/airlock v0.0.0-00010101000000-000000000000
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
)
