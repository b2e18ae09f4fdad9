//go:build !race

package aisdk_test

// loadStreams is how many streams TestLoad opens at once.
const loadStreams = 1000
