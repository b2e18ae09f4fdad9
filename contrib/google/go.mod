module github.com/airlock-go/airlock/contrib/google

go 1.25.0

replace github.com/airlock-go/airlock => ../..

require (
	github.com/airlock-go/airlock v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	golang.org/x/oauth2 v0.36.0
)

require cloud.google.com/go/compute/metadata v0.3.0 // indirect
