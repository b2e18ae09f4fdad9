//go:build race

package aisdk_test

// loadStreams is how many streams TestLoad opens at once: fewer under the
// race detector, which limits a program to 8128 goroutines and each
// stream takes about five.
const loadStreams = 200
